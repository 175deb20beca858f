/*
 * cudart_abi.h - the binary interface of the CUDA runtime (libcudart.so.13)
 * that programs compiled by nvcc 13 call: the types, enum values and
 * struct layouts the replacement runtime must match byte for byte.
 *
 * Written from the CUDA Runtime API reference (docs.nvidia.com/cuda/
 * cuda-runtime-api) and checked against the CUDA 13.0 toolkit's headers:
 * tests/cudart-abi.sh compiles offsetof/sizeof checks of these against
 * driver_types.h where a toolkit is installed.  Only what the runtime
 * uses is named; the rest of a struct is padding of the same size.
 */
#ifndef SMSIM_CUDART_ABI_H
#define SMSIM_CUDART_ABI_H

#include <stddef.h>
#include <stdint.h>

typedef int cudaError_t;

/* Error codes (enum cudaError). */
enum {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorSharedObjectSymbolNotFound = 302,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorAssert = 710,
    cudaErrorLaunchFailure = 719,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotPermitted = 800,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
};

/* enum cudaMemcpyKind */
enum { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
       cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };

/* enum cudaMemoryType */
enum { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2,
       cudaMemoryTypeManaged = 3 };

/* enum cudaFuncAttribute */
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
       cudaFuncAttributePreferredSharedMemoryCarveout = 9,
       cudaFuncAttributeRequiredClusterWidth = 11 };

/* enum cudaLaunchAttributeID */
enum { cudaLaunchAttributeCooperative = 2, cudaLaunchAttributeClusterDimension = 4 };

/* enum cudaDeviceAttr (those the runtime answers) */
enum {
    cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxPitch = 11, cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
    cudaDevAttrTextureAlignment = 14, cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16, cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18, cudaDevAttrCanMapHostMemory = 19, cudaDevAttrComputeMode = 20,
    cudaDevAttrSurfaceAlignment = 30, cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrEccEnabled = 32, cudaDevAttrPciBusId = 33, cudaDevAttrPciDeviceId = 34,
    cudaDevAttrTccDriver = 35, cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40, cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrPciDomainId = 50, cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76, cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79, cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82, cudaDevAttrManagedMemory = 83,
    cudaDevAttrIsMultiGpuBoard = 84, cudaDevAttrMultiGpuBoardGroupID = 85,
    cudaDevAttrHostNativeAtomicSupported = 86, cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89, cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91, cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrDirectManagedMemAccessFromHost = 101, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMaxPersistingL2CacheSize = 108, cudaDevAttrMaxAccessPolicyWindowSize = 109,
    cudaDevAttrReservedSharedMemoryPerBlock = 111, cudaDevAttrClusterLaunch = 120,
    cudaDevAttrMaxTexture1DWidth = 21, cudaDevAttrMaxTexture2DWidth = 22,
    cudaDevAttrMaxTexture2DHeight = 23, cudaDevAttrMaxTexture3DWidth = 24,
    cudaDevAttrMaxTexture3DHeight = 25, cudaDevAttrMaxTexture3DDepth = 26,
    cudaDevAttrMaxTexture2DLayeredWidth = 27, cudaDevAttrMaxTexture2DLayeredHeight = 28,
    cudaDevAttrMaxTexture2DLayeredLayers = 29, cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrMemoryPoolSupportedHandleTypes = 119
};

typedef struct dim3 {
    unsigned x, y, z;
} dim3;

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

/* Stream capture and graphs (driver_types.h) */
enum { cudaErrorStreamCaptureUnsupported = 900, cudaErrorStreamCaptureUnmatched = 903 };
enum { cudaStreamCaptureStatusNone = 0, cudaStreamCaptureStatusActive = 1 };
enum { cudaGraphNodeTypeKernel = 0, cudaGraphNodeTypeMemcpy = 1, cudaGraphNodeTypeMemset = 2,
       cudaGraphNodeTypeHost = 3, cudaGraphNodeTypeGraph = 4, cudaGraphNodeTypeEmpty = 5,
       cudaGraphNodeTypeWaitEvent = 6, cudaGraphNodeTypeEventRecord = 7,
       cudaGraphNodeTypeMemAlloc = 10, cudaGraphNodeTypeMemFree = 11,
       cudaGraphNodeTypeConditional = 13 };
enum { cudaStreamAddCaptureDependencies = 0, cudaStreamSetCaptureDependencies = 1 };

/* Conditional nodes (CUDA 12.4+): a handle names a condition value the
 * device sets (cudaGraphSetConditional) */
typedef unsigned long long cudaGraphConditionalHandle;
enum { cudaGraphCondAssignDefault = 1 };
enum { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2 };

/* struct cudaMemPoolProps: 88 bytes; struct cudaMemAllocNodeParams: 120 bytes */
struct cudaMemPoolProps {
    int allocType, handleTypes;
    int locationType, locationId;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const void *accessDescs;
    size_t accessDescCount;
    size_t bytesize;
    void *dptr;
};

/* struct cudaKernelNodeParams: 56 bytes */
struct cudaKernelNodeParams {
    void *func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned sharedMemBytes;
    void **kernelParams;
    void **extra;
};

/* struct cudaPos, cudaPitchedPtr, cudaExtent, cudaMemcpy3DParms: 160 bytes */
struct cudaPos {
    size_t x, y, z;
};
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch, xsize, ysize;
};
struct cudaExtent {
    size_t width, height, depth;
};
struct cudaMemcpy3DParms {
    void *srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    void *dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    int kind;
};

/* CUDA arrays, texture and surface objects (driver_types.h, texture_types.h).
 * struct cudaChannelFormatDesc: 20 bytes; enum cudaChannelFormatKind */
struct cudaChannelFormatDesc {
    int x, y, z, w;
    int f;
};
enum { cudaChannelFormatKindSigned = 0, cudaChannelFormatKindUnsigned = 1,
       cudaChannelFormatKindFloat = 2, cudaChannelFormatKindNone = 3 };
/* cudaMallocArray / cudaMalloc3DArray flags */
enum { cudaArrayLayered = 1, cudaArraySurfaceLoadStore = 2, cudaArrayCubemap = 4,
       cudaArrayTextureGather = 8 };
typedef struct cudaArray *cudaArray_t;
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
/* enum cudaResourceType; struct cudaResourceDesc: 144 bytes */
enum { cudaResourceTypeArray = 0, cudaResourceTypeMipmappedArray = 1,
       cudaResourceTypeLinear = 2, cudaResourceTypePitch2D = 3 };
struct cudaResourceDesc {
    int resType;
    union {
        struct { cudaArray_t array; } array;
        struct { void *mipmap; } mipmap;
        struct { void *devPtr; struct cudaChannelFormatDesc desc; size_t sizeInBytes; } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned flags;
};
/* enum cudaTextureAddressMode, cudaTextureFilterMode, cudaTextureReadMode;
 * struct cudaTextureDesc: 72 bytes */
enum { cudaAddressModeWrap = 0, cudaAddressModeClamp = 1, cudaAddressModeMirror = 2,
       cudaAddressModeBorder = 3 };
enum { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };
struct cudaTextureDesc {
    int addressMode[3];
    int filterMode;
    int readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned maxAnisotropy;
    int mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

/* struct cudaMemsetParams: 40 bytes */
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned value;
    unsigned elementSize;
    size_t width, height;
};

/* struct cudaHostNodeParams: 16 bytes */
struct cudaHostNodeParams {
    void (*fn)(void *);
    void *userData;
};

/* struct cudaConditionalNodeParams: 24 bytes */
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    int type;                    /* cudaGraphCondType* */
    unsigned size;               /* bodies: If 1 or 2, While 1, Switch >= 1 */
    cudaGraph_t *phGraph_out;    /* set by the runtime: the bodies, owned by the node */
};

/* struct cudaGraphNodeParams (cudaGraphAddNode): 256 bytes, the union at 16 */
struct cudaGraphNodeParams {
    int type;                    /* cudaGraphNodeType* */
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaKernelNodeParams kernel;         /* cudaKernelNodeParamsV2: the same */
        struct {
            int flags, reserved[3];
            struct cudaMemcpy3DParms copyParams;
        } memcpy;
        struct cudaMemsetParams memset;             /* cudaMemsetParamsV2: the same */
        struct cudaHostNodeParams host;             /* cudaHostNodeParamsV2: the same */
        struct {
            cudaGraph_t graph;
            int ownership;
        } graph;
        struct {
            cudaEvent_t event;
        } eventWait, eventRecord;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

/* cudaGraphExecUpdateResultInfo: 24 bytes */
typedef struct cudaGraphExecUpdateResultInfo {
    int result;
    cudaGraphNode_t errorNode, errorFromNode;
} cudaGraphExecUpdateResultInfo;

/* struct cudaDeviceProp (CUDA 12+, cudaGetDeviceProperties_v2): 1008 bytes */
struct cudaDeviceProp {
    char name[256];
    unsigned char uuid[16];
    char luid[8];
    unsigned luidDeviceNodeMask;
    size_t totalGlobalMem;               /* 288 */
    size_t sharedMemPerBlock;
    int regsPerBlock;
    int warpSize;
    size_t memPitch;
    int maxThreadsPerBlock;              /* 320 */
    int maxThreadsDim[3];
    int maxGridSize[3];
    size_t totalConstMem;                /* 352 */
    int major;
    int minor;
    size_t textureAlignment;
    size_t texturePitchAlignment;
    int multiProcessorCount;             /* 384 */
    int integrated;
    int canMapHostMemory;
    int textures_and_surfaces[39];       /* maxTexture1D .. maxSurfaceCubemapLayered[2] */
    size_t surfaceAlignment;             /* 552 */
    int concurrentKernels;
    int ECCEnabled;
    int pciBusID;
    int pciDeviceID;
    int pciDomainID;
    int tccDriver;
    int asyncEngineCount;                /* 584 */
    int unifiedAddressing;
    int memoryBusWidth;
    int l2CacheSize;
    int persistingL2CacheMaxSize;
    int maxThreadsPerMultiProcessor;     /* 604 */
    int streamPrioritiesSupported;
    int globalL1CacheSupported;
    int localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;   /* 624 */
    int regsPerMultiprocessor;
    int managedMemory;
    int isMultiGpuBoard;
    int multiGpuBoardGroupID;
    int hostNativeAtomicSupported;
    int pageableMemoryAccess;
    int concurrentManagedAccess;
    int computePreemptionSupported;
    int canUseHostPointerForRegisteredMem;
    int cooperativeLaunch;               /* 668 */
    size_t sharedMemPerBlockOptin;       /* 672 */
    int pageableMemoryAccessUsesHostPageTables;
    int directManagedMemAccessFromHost;
    int maxBlocksPerMultiProcessor;      /* 688 */
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;    /* 696 */
    int more[11];                        /* hostRegisterSupported .. ipcEventSupported */
    int clusterLaunch;                   /* 748 */
    int tail[8];                         /* unifiedFunctionPointers .. hostNumaMultinodeIpcSupported */
    int reserved[56];                    /* 784 */
};

/* struct cudaFuncAttributes: 144 bytes */
struct cudaFuncAttributes {
    size_t sharedSizeBytes;
    size_t constSizeBytes;
    size_t localSizeBytes;
    int maxThreadsPerBlock;
    int numRegs;
    int ptxVersion;
    int binaryVersion;
    int cacheModeCA;
    int maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
    int clusterDimMustBeSet;
    int requiredClusterWidth;
    int requiredClusterHeight;
    int requiredClusterDepth;
    int clusterSchedulingPolicyPreference;
    int nonPortableClusterSizeAllowed;
    int reserved[17];
};

/* struct cudaPointerAttributes: 88 bytes */
struct cudaPointerAttributes {
    int type;                            /* enum cudaMemoryType */
    int device;
    void *devicePointer;
    void *hostPointer;
    long reserved[8];
};

/* cudaLaunchAttribute: 72 bytes, its value a 64-byte union at 8 */
typedef struct cudaLaunchAttribute {
    int id;
    char pad[4];
    union {
        char bytes[64];
        struct { unsigned x, y, z; } clusterDim;
        int cooperative;
    } val;
} cudaLaunchAttribute;

/* cudaLaunchConfig_t: 56 bytes */
typedef struct cudaLaunchConfig_t {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned numAttrs;
} cudaLaunchConfig_t;

/* The fat binary wrapper nvcc's host code registers (fatbinary_section.h:
 * magic, version, the fat binary, and a file name or prelinked list). */
#define CUDART_FATBINC_MAGIC 0x466243B1u
struct cudart_fatbin_wrapper {
    int magic;
    int version;
    const unsigned long long *data;
    void *filename_or_fatbins;
};

#endif /* SMSIM_CUDART_ABI_H */
