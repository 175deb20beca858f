#!/bin/sh
# cudart-abi.sh - the replacement CUDA runtime's structs and enum values
# (cudart/cudart_abi.h) against a CUDA toolkit's own headers, where one is
# installed: the offsets and sizes a program compiled by nvcc relies on.
# Skipped (77) without a toolkit.
set -u
: "${srcdir:?}"
CUDA_INC=${CUDA_INC:-/usr/local/cuda/include}
CC=${CC:-cc}
[ -f "$CUDA_INC/driver_types.h" ] || { echo "SKIP: no CUDA toolkit headers in $CUDA_INC"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.c" <<'C'
#include <stdio.h>
#include <stddef.h>
#define S(t) printf("sizeof %s %zu\n", #t, sizeof(t));
#define O(t, f) printf("offsetof %s.%s %zu\n", #t, #f, offsetof(t, f));
#define V(e) printf("value %s %d\n", #e, (int)(e));
int main(void) {
    S(struct cudaDeviceProp) S(struct cudaFuncAttributes) S(struct cudaPointerAttributes)
    S(cudaLaunchAttribute) S(cudaLaunchConfig_t) S(dim3)
    O(struct cudaDeviceProp, totalGlobalMem) O(struct cudaDeviceProp, sharedMemPerBlock)
    O(struct cudaDeviceProp, regsPerBlock) O(struct cudaDeviceProp, warpSize)
    O(struct cudaDeviceProp, maxThreadsPerBlock) O(struct cudaDeviceProp, maxThreadsDim)
    O(struct cudaDeviceProp, maxGridSize) O(struct cudaDeviceProp, totalConstMem)
    O(struct cudaDeviceProp, major) O(struct cudaDeviceProp, minor)
    O(struct cudaDeviceProp, multiProcessorCount) O(struct cudaDeviceProp, canMapHostMemory)
    O(struct cudaDeviceProp, surfaceAlignment) O(struct cudaDeviceProp, concurrentKernels)
    O(struct cudaDeviceProp, asyncEngineCount) O(struct cudaDeviceProp, unifiedAddressing)
    O(struct cudaDeviceProp, l2CacheSize) O(struct cudaDeviceProp, maxThreadsPerMultiProcessor)
    O(struct cudaDeviceProp, sharedMemPerMultiprocessor)
    O(struct cudaDeviceProp, regsPerMultiprocessor) O(struct cudaDeviceProp, managedMemory)
    O(struct cudaDeviceProp, cooperativeLaunch) O(struct cudaDeviceProp, sharedMemPerBlockOptin)
    O(struct cudaDeviceProp, maxBlocksPerMultiProcessor)
    O(struct cudaDeviceProp, reservedSharedMemPerBlock) O(struct cudaDeviceProp, clusterLaunch)
    O(struct cudaDeviceProp, reserved)
    O(struct cudaFuncAttributes, numRegs) O(struct cudaFuncAttributes, maxDynamicSharedSizeBytes)
    O(struct cudaFuncAttributes, requiredClusterWidth)
    O(struct cudaPointerAttributes, devicePointer) O(struct cudaPointerAttributes, hostPointer)
    O(cudaLaunchAttribute, val) O(cudaLaunchConfig_t, dynamicSmemBytes)
    O(cudaLaunchConfig_t, stream) O(cudaLaunchConfig_t, attrs) O(cudaLaunchConfig_t, numAttrs)
    V(cudaErrorInvalidValue) V(cudaErrorMemoryAllocation) V(cudaErrorInitializationError)
    V(cudaErrorInvalidConfiguration) V(cudaErrorInvalidSymbol) V(cudaErrorInvalidDevicePointer)
    V(cudaErrorInvalidMemcpyDirection) V(cudaErrorInvalidDeviceFunction) V(cudaErrorNoDevice)
    V(cudaErrorInvalidDevice) V(cudaErrorInvalidKernelImage) V(cudaErrorNoKernelImageForDevice)
    V(cudaErrorSharedObjectSymbolNotFound) V(cudaErrorInvalidResourceHandle) V(cudaErrorNotReady)
    V(cudaErrorIllegalAddress) V(cudaErrorLaunchOutOfResources) V(cudaErrorAssert)
    V(cudaErrorLaunchFailure) V(cudaErrorCooperativeLaunchTooLarge) V(cudaErrorNotPermitted)
    V(cudaErrorNotSupported) V(cudaErrorUnknown) V(cudaMemcpyDefault) V(cudaMemoryTypeManaged)
    V(cudaFuncAttributeMaxDynamicSharedMemorySize) V(cudaFuncAttributeRequiredClusterWidth)
    V(cudaLaunchAttributeClusterDimension) V(cudaLaunchAttributeCooperative)
    V(cudaDevAttrMaxSharedMemoryPerBlockOptin) V(cudaDevAttrClusterLaunch)
    V(cudaDevAttrReservedSharedMemoryPerBlock) V(cudaDevAttrMaxBlocksPerMultiprocessor)
    V(cudaDevAttrConcurrentManagedAccess) V(cudaDevAttrL2CacheSize)
    V(cudaDevAttrMemoryClockRate) V(cudaDevAttrGlobalMemoryBusWidth)
    S(struct cudaKernelNodeParams) O(struct cudaKernelNodeParams, gridDim)
    O(struct cudaKernelNodeParams, blockDim) O(struct cudaKernelNodeParams, sharedMemBytes)
    O(struct cudaKernelNodeParams, kernelParams) O(struct cudaKernelNodeParams, extra)
    S(struct cudaMemcpy3DParms) O(struct cudaMemcpy3DParms, srcPos) O(struct cudaMemcpy3DParms, srcPtr)
    O(struct cudaMemcpy3DParms, dstArray) O(struct cudaMemcpy3DParms, dstPos)
    O(struct cudaMemcpy3DParms, dstPtr) O(struct cudaMemcpy3DParms, extent)
    O(struct cudaMemcpy3DParms, kind) S(struct cudaPitchedPtr) S(struct cudaExtent)
    S(struct cudaMemsetParams) O(struct cudaMemsetParams, value)
    O(struct cudaMemsetParams, elementSize) O(struct cudaMemsetParams, width)
    O(struct cudaMemsetParams, height) S(struct cudaHostNodeParams)
    O(struct cudaHostNodeParams, userData) S(cudaGraphExecUpdateResultInfo)
    O(cudaGraphExecUpdateResultInfo, errorNode) O(cudaGraphExecUpdateResultInfo, errorFromNode)
    V(cudaErrorStreamCaptureUnsupported) V(cudaErrorStreamCaptureUnmatched)
    V(cudaErrorIllegalState) V(cudaStreamCaptureStatusActive) V(cudaGraphNodeTypeKernel)
    V(cudaGraphNodeTypeMemcpy) V(cudaGraphNodeTypeMemset) V(cudaGraphNodeTypeHost)
    V(cudaGraphNodeTypeGraph) V(cudaGraphNodeTypeEmpty) V(cudaGraphNodeTypeWaitEvent)
    V(cudaGraphNodeTypeEventRecord)
    S(struct cudaChannelFormatDesc) O(struct cudaChannelFormatDesc, f)
    S(struct cudaResourceDesc) O(struct cudaResourceDesc, res) O(struct cudaResourceDesc, flags)
    O(struct cudaResourceDesc, res.linear.desc) O(struct cudaResourceDesc, res.linear.sizeInBytes)
    O(struct cudaResourceDesc, res.pitch2D.width) O(struct cudaResourceDesc, res.pitch2D.pitchInBytes)
    S(struct cudaTextureDesc) O(struct cudaTextureDesc, filterMode) O(struct cudaTextureDesc, readMode)
    O(struct cudaTextureDesc, borderColor) O(struct cudaTextureDesc, normalizedCoords)
    O(struct cudaTextureDesc, mipmapFilterMode) O(struct cudaTextureDesc, seamlessCubemap)
    V(cudaChannelFormatKindFloat) V(cudaArrayLayered) V(cudaArraySurfaceLoadStore)
    V(cudaArrayCubemap) V(cudaResourceTypeLinear) V(cudaResourceTypePitch2D)
    V(cudaAddressModeBorder) V(cudaFilterModeLinear) V(cudaReadModeNormalizedFloat)
    V(cudaDevAttrMaxTexture1DWidth) V(cudaDevAttrMaxTexture2DLayeredLayers)
    V(cudaDevAttrMemoryPoolsSupported) V(cudaDevAttrMemoryPoolSupportedHandleTypes)
    S(struct cudaMemPoolProps) O(struct cudaMemPoolProps, maxSize) O(struct cudaMemPoolProps, usage)
    S(struct cudaMemAllocNodeParams) O(struct cudaMemAllocNodeParams, bytesize)
    O(struct cudaMemAllocNodeParams, dptr) V(cudaGraphNodeTypeMemAlloc) V(cudaGraphNodeTypeMemFree)
    S(struct cudaGraphNodeParams) O(struct cudaGraphNodeParams, kernel)
    O(struct cudaGraphNodeParams, memcpy.copyParams) O(struct cudaGraphNodeParams, memset.height)
    O(struct cudaGraphNodeParams, host.userData) O(struct cudaGraphNodeParams, graph.graph)
    O(struct cudaGraphNodeParams, eventRecord.event) O(struct cudaGraphNodeParams, reserved2)
    S(struct cudaConditionalNodeParams) O(struct cudaConditionalNodeParams, type)
    O(struct cudaConditionalNodeParams, size) O(struct cudaConditionalNodeParams, phGraph_out)
    V(cudaGraphNodeTypeConditional) V(cudaGraphCondAssignDefault) V(cudaGraphCondTypeIf)
    V(cudaGraphCondTypeWhile) V(cudaGraphCondTypeSwitch) V(cudaStreamSetCaptureDependencies)
    S(cudaGraphConditionalHandle)
    return 0;
}
C
printf '#include <cuda_runtime_api.h>\n' >"$tmp/theirs.c"
printf '#include "cudart/cudart_abi.h"\n' >"$tmp/ours.c"
cat "$tmp/probe.c" >>"$tmp/theirs.c"
cat "$tmp/probe.c" >>"$tmp/ours.c"
"$CC" -I"$CUDA_INC" -o "$tmp/theirs" "$tmp/theirs.c" || { echo "FAIL: the toolkit probe does not compile"; exit 1; }
"$CC" -I"$srcdir" -o "$tmp/ours" "$tmp/ours.c" || { echo "FAIL: cudart_abi.h probe does not compile"; exit 1; }
"$tmp/theirs" >"$tmp/theirs.txt"
"$tmp/ours" >"$tmp/ours.txt"
if ! diff "$tmp/theirs.txt" "$tmp/ours.txt"; then
    echo "FAIL: cudart/cudart_abi.h differs from $CUDA_INC (lines above: < toolkit, > ours)"
    exit 1
fi
echo "cudart-abi.sh: $(wc -l <"$tmp/ours.txt") sizes, offsets and values agree with $CUDA_INC"
