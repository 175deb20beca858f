/*
 * cudart_graph.c - CUDA graphs for the replacement runtime: graphs built
 * node by node (cudaGraphAdd*Node) or captured from streams
 * (cudaStreamBeginCapture ... cudaStreamEndCapture, following events into
 * other streams), instantiated and launched.
 *
 * Work runs when it is issued (cudart.h), so a graph launch replays its
 * nodes one at a time, each through the call the program could have made
 * (a kernel launch, a copy, a set, a host function, an event record), in
 * an order that respects every dependency: of the nodes whose
 * dependencies have run, the one added first.  That is one of the orders
 * a GPU may run the graph in; the timeline gets the nodes' times one
 * after another.  A kernel node copies its arguments when it is added (as
 * the driver does), so the program may reuse the memory they were in.
 *
 * Invariants: a graph owns its nodes (graph->nodes[i]->index == i); an
 * executable graph owns a copy of the graph it was made from, node for
 * node, so a node of the original names the copy's node of the same
 * index (cudaGraphExecKernelNodeSetParams).  A memory allocation node's
 * memory is reserved when the node is made (its address is the node's for
 * good) and is allocated when the node runs, freed by a free node or by
 * the program (cudart.h, rt_graph_mem_*).  A conditional node's handle
 * is a word of device memory the runtime allocates: the device writes it
 * (cudaGraphSetConditional, a builtin of frontend/exec/ptx_call.c) and the
 * node reads it when it runs, then runs its bodies (If: body 0 if it is
 * not zero, else body 1 if there is one; While: body 0 until it reads
 * zero; Switch: body n for the value n, none past the last).  Not
 * modelled: a launch overlapping other work (there is one timeline),
 * graphs of arrays (refused by name).
 */
#include "cudart/cudart.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum { MAX_PARAMS = 256 };

struct CUgraphNode_st {
    struct CUgraph_st *graph;
    int type;                    /* cudaGraphNodeType* */
    uint32_t index;              /* in graph->nodes */
    struct CUgraphNode_st **deps;
    uint32_t n_deps, cap_deps;
    union {
        struct {
            const void *func;
            dim3 grid, block;
            size_t smem;
            uint32_t cluster[3];
            bool has_cluster, coop;
            uint32_t n_args, bytes;  /* the parameters, the bytes of their space */
            uint32_t off[MAX_PARAMS], size[MAX_PARAMS];
            uint8_t *args;       /* the argument values, at their parameter-space offsets */
        } k;
        struct cudaMemcpy3DParms c;   /* of pitched memory: cudaMemcpy3D */
        struct cudaMemsetParams set;
        struct cudaHostNodeParams host;
        struct CUgraph_st *child;
        cudaEvent_t ev;
        struct {
            void *dptr;          /* memory nodes: the allocation (cudart_pool.c) */
            size_t bytes;
        } mem;
        struct {
            uint64_t handle;     /* the condition's device address */
            int type;            /* cudaGraphCondType* */
            uint32_t size;
            struct CUgraph_st **body;    /* [size], owned */
        } cond;
    } p;
};

/* A conditional handle of a graph: its word, and the value it is given
 * at each launch (with cudaGraphCondAssignDefault). */
struct cond_handle {
    uint64_t addr;
    uint32_t dflt;
    bool assign;
};

struct CUgraph_st {
    struct CUgraphNode_st **nodes;
    uint32_t n, cap;
    /* while captured: the capture's id, the stream that began it and those
     * that joined it (waiting for an event of it) */
    unsigned long long capture_id;
    struct CUstream_st *origin;
    struct CUstream_st **joined;
    uint32_t n_joined, cap_joined;
    bool into;                   /* captured into by cudaStreamBeginCaptureToGraph: the
                                    program's graph, kept when the capture ends */
    struct cond_handle *conds;   /* its conditional handles */
    uint32_t n_conds, cap_conds;
};

/* The graphs being captured (few at a time), by capture id. */
static struct CUgraph_st **active;
static uint32_t n_active, cap_active;

struct CUgraphExec_st {
    struct CUgraph_st *g;        /* the graph as instantiated (a copy) */
    uint32_t *order;             /* the nodes' replay order */
};

static void node_free(struct CUgraphNode_st *n);
static struct CUgraph_st *graph_clone(const struct CUgraph_st *g);

static void
graph_free(struct CUgraph_st *g)
{
    if (g == NULL)
        return;
    for (uint32_t i = 0; i < g->n; i++)
        node_free(g->nodes[i]);
    free(g->nodes);
    free(g->conds);
    free(g);
}

static void
node_free(struct CUgraphNode_st *n)
{
    if (n->type == cudaGraphNodeTypeKernel)
        free(n->p.k.args);
    else if (n->type == cudaGraphNodeTypeGraph)
        graph_free(n->p.child);
    else if (n->type == cudaGraphNodeTypeConditional) {
        for (uint32_t i = 0; i < n->p.cond.size; i++)
            graph_free(n->p.cond.body[i]);
        free(n->p.cond.body);
    }
    free(n->deps);
    free(n);
}

/* Add a node of type to g after deps[0 .. nd - 1] (nodes of g). */
static cudaError_t
add_node(struct CUgraph_st *g, int type, struct CUgraphNode_st *const *deps, size_t nd,
         struct CUgraphNode_st **out)
{
    if (g == NULL || (nd > 0 && deps == NULL))
        return rt_fail(cudaErrorInvalidValue, NULL);
    for (size_t i = 0; i < nd; i++)
        if (deps[i] == NULL || deps[i]->graph != g)
            return rt_fail(cudaErrorInvalidValue, "a graph node's dependency is not a node of "
                           "its graph");
    struct CUgraphNode_st *n = calloc(1, sizeof *n);
    if (n == NULL)
        abort();
    n->graph = g;
    n->type = type;
    n->index = g->n;
    n->deps = rt_grow(NULL, &n->cap_deps, (uint32_t)nd, sizeof *n->deps);
    if (nd > 0)
        memcpy(n->deps, deps, nd * sizeof *deps);
    n->n_deps = (uint32_t)nd;
    g->nodes = rt_grow(g->nodes, &g->cap, g->n + 1, sizeof *g->nodes);
    g->nodes[g->n++] = n;
    *out = n;
    return cudaSuccess;
}

/* A kernel node's parameters: the function, its shape, its arguments copied. */
static cudaError_t
set_kernel(struct CUgraphNode_st *n, const void *func, dim3 grid, dim3 block, void **args,
           size_t smem, const uint32_t *cluster, bool coop)
{
    uint32_t off[MAX_PARAMS], size[MAX_PARAMS];
    int np = rt_param_layout(func, off, size, MAX_PARAMS);
    if (np < 0)
        return rt.last;
    uint32_t total = np > 0 ? off[np - 1] + size[np - 1] : 0;   /* the parameter space's */
    uint8_t *a = malloc(total ? total : 1);
    if (a == NULL)
        abort();
    for (int i = 0; i < np; i++) {
        if (args == NULL || args[i] == NULL) {
            free(a);
            return rt_fail(cudaErrorInvalidValue, "a kernel node without its %d arguments", np);
        }
        memcpy(a + off[i], args[i], size[i]);
    }
    memcpy(n->p.k.off, off, (size_t)np * sizeof off[0]);
    memcpy(n->p.k.size, size, (size_t)np * sizeof size[0]);
    if (n->type == cudaGraphNodeTypeKernel)
        free(n->p.k.args);
    n->p.k.args = a;
    n->p.k.n_args = (uint32_t)np;
    n->p.k.bytes = total;
    n->p.k.func = func;
    n->p.k.grid = grid;
    n->p.k.block = block;
    n->p.k.smem = smem;
    n->p.k.has_cluster = cluster != NULL;
    if (cluster != NULL)
        memcpy(n->p.k.cluster, cluster, sizeof n->p.k.cluster);
    n->p.k.coop = coop;
    return cudaSuccess;
}

static cudaError_t
set_kernel_params(struct CUgraphNode_st *n, const void *params)
{
    const struct cudaKernelNodeParams *p = params;
    if (p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (p->extra != NULL)
        return rt_fail(cudaErrorNotSupported, "unsupported: a kernel node's arguments in the "
                       "'extra' format (give kernelParams)");
    return set_kernel(n, p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes,
                      NULL, false);
}

static cudaError_t
set_copy3d(struct CUgraphNode_st *n, const void *params)
{
    const struct cudaMemcpy3DParms *p = params;
    if (p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (p->srcArray != NULL || p->dstArray != NULL)
        return rt_fail(cudaErrorNotSupported, "unsupported: a memcpy node of a CUDA array "
                       "(arrays are not simulated)");
    n->p.c = *p;
    return cudaSuccess;
}

/* The parameters of a 2-D copy (cudaMemcpy2D's arguments) as a 3-D one's. */
static struct cudaMemcpy3DParms
copy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
       int kind)
{
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = (struct cudaPitchedPtr){ (void *)(uintptr_t)src, spitch, width, height };
    p.dstPtr = (struct cudaPitchedPtr){ dst, dpitch, width, height };
    p.extent = (struct cudaExtent){ width, height, 1 };
    p.kind = kind;
    return p;
}

static cudaError_t
set_memset(struct CUgraphNode_st *n, const void *params)
{
    const struct cudaMemsetParams *p = params;
    if (p == NULL || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return rt_fail(cudaErrorInvalidValue, NULL);
    n->p.set = *p;
    return cudaSuccess;
}

static cudaError_t
set_host(struct CUgraphNode_st *n, const void *params)
{
    const struct cudaHostNodeParams *p = params;
    if (p == NULL || p->fn == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    n->p.host = *p;
    return cudaSuccess;
}

static cudaError_t run_graph(const struct CUgraph_st *g, const uint32_t *order);
static cudaError_t capture_node(cudaStream_t stream, int type, struct CUgraphNode_st **out);

/* The value of conditional handle h (a word of device memory). */
static cudaError_t
cond_value(uint64_t h, uint32_t *v)
{
    smsim_error err = { 0 };
    const void *p = smsim_program_host(rt.prog, h, 4, &err);
    if (p == NULL)
        return rt_fail(cudaErrorInvalidValue, "a conditional node's handle: %s", err.msg);
    memcpy(v, p, 4);
    return cudaSuccess;
}

/* A conditional node: its bodies as its condition says. */
static cudaError_t
run_conditional(const struct CUgraphNode_st *n)
{
    uint32_t v;
    cudaError_t e = cond_value(n->p.cond.handle, &v);
    if (e != cudaSuccess)
        return e;
    switch (n->p.cond.type) {
    case cudaGraphCondTypeIf:
        if (v != 0)
            return run_graph(n->p.cond.body[0], NULL);
        return n->p.cond.size > 1 ? run_graph(n->p.cond.body[1], NULL) : cudaSuccess;
    case cudaGraphCondTypeWhile:
        while (v != 0 && e == cudaSuccess) {
            e = run_graph(n->p.cond.body[0], NULL);
            if (e == cudaSuccess)
                e = cond_value(n->p.cond.handle, &v);
        }
        return e;
    default:                     /* Switch */
        return v < n->p.cond.size ? run_graph(n->p.cond.body[v], NULL) : cudaSuccess;
    }
}

/* At a launch: the handles of g, and of the graphs inside it, that take
 * their default value. */
static void
cond_defaults(const struct CUgraph_st *g)
{
    for (uint32_t i = 0; i < g->n_conds; i++)
        if (g->conds[i].assign) {
            smsim_error err = { 0 };
            void *p = smsim_program_host(rt.prog, g->conds[i].addr, 4, &err);
            if (p != NULL)
                memcpy(p, &g->conds[i].dflt, 4);
        }
    for (uint32_t i = 0; i < g->n; i++) {
        const struct CUgraphNode_st *n = g->nodes[i];
        if (n->type == cudaGraphNodeTypeGraph)
            cond_defaults(n->p.child);
        else if (n->type == cudaGraphNodeTypeConditional)
            for (uint32_t b = 0; b < n->p.cond.size; b++)
                cond_defaults(n->p.cond.body[b]);
    }
}

/* Carry out node n. */
static cudaError_t
run_node(const struct CUgraphNode_st *n)
{
    switch (n->type) {
    case cudaGraphNodeTypeKernel: {
        void *argv[MAX_PARAMS];
        for (uint32_t i = 0; i < n->p.k.n_args; i++)
            argv[i] = n->p.k.args + n->p.k.off[i];
        return rt_launch(n->p.k.func, n->p.k.grid, n->p.k.block, argv, n->p.k.smem,
                         n->p.k.has_cluster ? n->p.k.cluster : NULL, n->p.k.coop);
    }
    case cudaGraphNodeTypeMemcpy:
        return cudaMemcpy3D(&n->p.c);
    case cudaGraphNodeTypeMemset: {
        const struct cudaMemsetParams *p = &n->p.set;
        for (size_t r = 0; r < (p->height ? p->height : 1); r++) {
            cudaError_t e = rt_memset_elems((char *)p->dst + r * p->pitch, p->value,
                                            p->elementSize, p->width);
            if (e != cudaSuccess)
                return e;
        }
        return cudaSuccess;
    }
    case cudaGraphNodeTypeHost:
        n->p.host.fn(n->p.host.userData);
        return cudaSuccess;
    case cudaGraphNodeTypeGraph:
        return run_graph(n->p.child, NULL);
    case cudaGraphNodeTypeEventRecord:
        n->p.ev->capture_id = 0;
        n->p.ev->t_ns = rt.now_ns;
        n->p.ev->recorded = true;
        return cudaSuccess;
    case cudaGraphNodeTypeMemAlloc:
        return rt_graph_mem_alloc(n->p.mem.dptr);
    case cudaGraphNodeTypeMemFree:
        return rt_graph_mem_free(n->p.mem.dptr);
    case cudaGraphNodeTypeConditional:
        return run_conditional(n);
    default:                     /* empty, event wait: the order is the wait */
        return cudaSuccess;
    }
}

/* The replay order of g into order[g->n]: of the nodes whose dependencies
 * are placed, the lowest index (a heap); false if the edges form a cycle. */
static bool
topo_order(const struct CUgraph_st *g, uint32_t *order)
{
    uint32_t n = g->n, *indeg = calloc(n + 1, sizeof *indeg), *heap = malloc((n + 1) * sizeof *heap);
    uint32_t *nsucc = calloc(n + 1, sizeof *nsucc), *first = calloc(n + 2, sizeof *first);
    uint32_t n_edges = 0;
    for (uint32_t i = 0; i < n; i++)
        n_edges += g->nodes[i]->n_deps;
    uint32_t *succ = malloc((n_edges + 1) * sizeof *succ), *fill = calloc(n + 1, sizeof *fill);
    if (indeg == NULL || heap == NULL || nsucc == NULL || first == NULL || succ == NULL ||
        fill == NULL)
        abort();
    for (uint32_t i = 0; i < n; i++) {
        indeg[i] = g->nodes[i]->n_deps;
        for (uint32_t d = 0; d < g->nodes[i]->n_deps; d++)
            nsucc[g->nodes[i]->deps[d]->index]++;
    }
    for (uint32_t i = 0; i < n; i++)
        first[i + 1] = first[i] + nsucc[i];
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t d = 0; d < g->nodes[i]->n_deps; d++) {
            uint32_t from = g->nodes[i]->deps[d]->index;
            succ[first[from] + fill[from]++] = i;
        }
    uint32_t hn = 0, placed = 0;
    for (uint32_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            heap[hn++] = i;      /* ascending: a heap already */
    while (hn > 0) {
        uint32_t v = heap[0];
        heap[0] = heap[--hn];
        for (uint32_t i = 0;;) { /* sift down */
            uint32_t l = 2 * i + 1, m = i;
            if (l < hn && heap[l] < heap[m])
                m = l;
            if (l + 1 < hn && heap[l + 1] < heap[m])
                m = l + 1;
            if (m == i)
                break;
            uint32_t t = heap[i];
            heap[i] = heap[m], heap[m] = t, i = m;
        }
        order[placed++] = v;
        for (uint32_t e = first[v]; e < first[v + 1]; e++)
            if (--indeg[succ[e]] == 0) {
                uint32_t i = hn++;   /* sift up */
                heap[i] = succ[e];
                while (i > 0 && heap[(i - 1) / 2] > heap[i]) {
                    uint32_t p = (i - 1) / 2, t = heap[p];
                    heap[p] = heap[i], heap[i] = t, i = p;
                }
            }
    }
    free(indeg), free(heap), free(nsucc), free(first), free(succ), free(fill);
    return placed == n;
}

static cudaError_t
run_graph(const struct CUgraph_st *g, const uint32_t *order)
{
    uint32_t *own = NULL;
    if (order == NULL) {         /* a child graph: ordered when it runs */
        own = malloc((g->n + 1) * sizeof *own);
        if (own == NULL)
            abort();
        if (!topo_order(g, own)) {
            free(own);
            return rt_fail(cudaErrorInvalidValue, "a child graph's dependencies form a cycle");
        }
        order = own;
    }
    cudaError_t e = cudaSuccess;
    for (uint32_t i = 0; i < g->n && e == cudaSuccess; i++)
        e = run_node(g->nodes[order[i]]);
    free(own);
    return e;
}

/* A copy of node n (of another graph) into g; its dependencies are set
 * once all nodes are there (graph_clone). */
static void
clone_node(struct CUgraph_st *g, const struct CUgraphNode_st *n)
{
    struct CUgraphNode_st *c = malloc(sizeof *c);
    if (c == NULL)
        abort();
    *c = *n;
    c->graph = g;
    c->deps = NULL;
    c->cap_deps = 0;
    if (n->type == cudaGraphNodeTypeKernel) {
        c->p.k.args = malloc(n->p.k.bytes ? n->p.k.bytes : 1);
        if (c->p.k.args == NULL)
            abort();
        memcpy(c->p.k.args, n->p.k.args, n->p.k.bytes);
    } else if (n->type == cudaGraphNodeTypeGraph) {
        c->p.child = graph_clone(n->p.child);
    } else if (n->type == cudaGraphNodeTypeConditional) {
        c->p.cond.body = malloc(n->p.cond.size * sizeof *c->p.cond.body);
        if (c->p.cond.body == NULL)
            abort();
        for (uint32_t i = 0; i < n->p.cond.size; i++)
            c->p.cond.body[i] = graph_clone(n->p.cond.body[i]);
    }
    g->nodes = rt_grow(g->nodes, &g->cap, g->n + 1, sizeof *g->nodes);
    g->nodes[g->n++] = c;
}

static struct CUgraph_st *
graph_clone(const struct CUgraph_st *g)
{
    struct CUgraph_st *c = calloc(1, sizeof *c);
    if (c == NULL)
        abort();
    if (g->n_conds > 0) {
        c->conds = rt_grow(NULL, &c->cap_conds, g->n_conds, sizeof *c->conds);
        memcpy(c->conds, g->conds, g->n_conds * sizeof *c->conds);
        c->n_conds = g->n_conds;
    }
    for (uint32_t i = 0; i < g->n; i++)
        clone_node(c, g->nodes[i]);
    for (uint32_t i = 0; i < g->n; i++) {  /* (cudaGraphAddDependencies: any index) */
        struct CUgraphNode_st *n = c->nodes[i];
        n->deps = rt_grow(NULL, &n->cap_deps, n->n_deps, sizeof *n->deps);
        for (uint32_t d = 0; d < n->n_deps; d++)
            n->deps[d] = c->nodes[g->nodes[i]->deps[d]->index];
    }
    return c;
}

/* ---- building graphs ------------------------------------------------------------------ */

/* Add a node of type to graph whose parameters set() takes from params;
 * if they are refused, the graph is left as it was. */
static cudaError_t
add_with(cudaGraphNode_t *pNode, cudaGraph_t graph, int type, const cudaGraphNode_t *deps,
         size_t nd, cudaError_t (*set)(struct CUgraphNode_st *, const void *), const void *params)
{
    struct CUgraphNode_st *n;
    cudaError_t e = add_node(graph, type, deps, nd, &n);
    if (e != cudaSuccess)
        return e;
    if ((e = set(n, params)) != cudaSuccess) {
        n->type = cudaGraphNodeTypeEmpty;   /* nothing of its own to free */
        graph->n--;
        node_free(n);
        return e;
    }
    *pNode = n;
    return cudaSuccess;
}

API cudaError_t
cudaGraphCreate(cudaGraph_t *pGraph, unsigned flags)
{
    RT_GUARD;
    if (pGraph == NULL || flags != 0)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *pGraph = calloc(1, sizeof **pGraph);
    if (*pGraph == NULL)
        abort();
    return cudaSuccess;
}

API cudaError_t
cudaGraphDestroy(cudaGraph_t graph)
{
    RT_GUARD;
    graph_free(graph);
    return cudaSuccess;
}

API cudaError_t
cudaGraphAddKernelNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                       size_t nd, const struct cudaKernelNodeParams *p)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    return add_with(pNode, graph, cudaGraphNodeTypeKernel, deps, nd, set_kernel_params, p);
}

API cudaError_t
cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *p)
{
    RT_GUARD;
    if (node == NULL || node->type != cudaGraphNodeTypeKernel || p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    /* the arguments' pointers point into the node's copy (valid while it lives) */
    static __thread void *argv[MAX_PARAMS];
    for (uint32_t i = 0; i < node->p.k.n_args; i++)
        argv[i] = node->p.k.args + node->p.k.off[i];
    p->func = (void *)(uintptr_t)node->p.k.func;
    p->gridDim = node->p.k.grid;
    p->blockDim = node->p.k.block;
    p->sharedMemBytes = (unsigned)node->p.k.smem;
    p->kernelParams = argv;
    p->extra = NULL;
    return cudaSuccess;
}

API cudaError_t
cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p)
{
    RT_GUARD;
    if (node == NULL || node->type != cudaGraphNodeTypeKernel)
        return rt_fail(cudaErrorInvalidValue, NULL);
    return set_kernel_params(node, p);
}

API cudaError_t
cudaGraphAddMemcpyNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                       size_t nd, const struct cudaMemcpy3DParms *p)
{
    RT_GUARD;
    return add_with(pNode, graph, cudaGraphNodeTypeMemcpy, deps, nd, set_copy3d, p);
}

API cudaError_t
cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t nd, void *dst, const void *src, size_t count, int kind)
{
    RT_GUARD;
    struct cudaMemcpy3DParms p = copy2d(dst, count, src, count, count, 1, kind);
    return add_with(pNode, graph, cudaGraphNodeTypeMemcpy, deps, nd, set_copy3d, &p);
}

API cudaError_t
cudaGraphAddMemsetNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                       size_t nd, const struct cudaMemsetParams *p)
{
    RT_GUARD;
    return add_with(pNode, graph, cudaGraphNodeTypeMemset, deps, nd, set_memset, p);
}

API cudaError_t
cudaGraphAddHostNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     size_t nd, const struct cudaHostNodeParams *p)
{
    RT_GUARD;
    return add_with(pNode, graph, cudaGraphNodeTypeHost, deps, nd, set_host, p);
}

API cudaError_t
cudaGraphAddEmptyNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                      size_t nd)
{
    RT_GUARD;
    return add_node(graph, cudaGraphNodeTypeEmpty, deps, nd, pNode);
}

API cudaError_t
cudaGraphAddChildGraphNode(cudaGraphNode_t *pNode, cudaGraph_t graph,
                           const cudaGraphNode_t *deps, size_t nd, cudaGraph_t child)
{
    RT_GUARD;
    if (child == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct CUgraphNode_st *n;
    cudaError_t e = add_node(graph, cudaGraphNodeTypeGraph, deps, nd, &n);
    if (e != cudaSuccess)
        return e;
    n->p.child = graph_clone(child);     /* the child is copied (cudaGraphAddChildGraphNode) */
    *pNode = n;
    return cudaSuccess;
}

static cudaError_t
add_event_node(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t nd,
               cudaEvent_t ev, int type)
{
    if (ev == NULL)
        return rt_fail(cudaErrorInvalidResourceHandle, NULL);
    struct CUgraphNode_st *n;
    cudaError_t e = add_node(graph, type, deps, nd, &n);
    if (e != cudaSuccess)
        return e;
    n->p.ev = ev;
    *pNode = n;
    return cudaSuccess;
}

API cudaError_t
cudaGraphAddEventRecordNode(cudaGraphNode_t *pNode, cudaGraph_t graph,
                            const cudaGraphNode_t *deps, size_t nd, cudaEvent_t ev)
{
    RT_GUARD;
    return add_event_node(pNode, graph, deps, nd, ev, cudaGraphNodeTypeEventRecord);
}

API cudaError_t
cudaGraphAddEventWaitNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                          size_t nd, cudaEvent_t ev)
{
    RT_GUARD;
    return add_event_node(pNode, graph, deps, nd, ev, cudaGraphNodeTypeWaitEvent);
}

/* Mark in seen[] (by node index) the nodes n depends on, directly or not. */
static void
mark_ancestors(const struct CUgraphNode_st *n, bool *seen)
{
    for (uint32_t i = 0; i < n->n_deps; i++) {
        const struct CUgraphNode_st *d = n->deps[i];
        if (!seen[d->index]) {
            seen[d->index] = true;
            mark_ancestors(d, seen);
        }
    }
}

/* The address of allocation node n (its dependencies set) of bytes: as
 * the driver does, the address of an allocation of the graph that is
 * freed before n runs -- every node that allocates it, and as many that
 * free it, are among n's ancestors -- and is large enough; else memory
 * reserved anew.  (NVIDIA's graphMemoryFootprint sample: "d_a and d_b
 * share a virtual address".) */
static cudaError_t
alloc_address(struct CUgraphNode_st *n, size_t bytes, void **dptr)
{
    struct CUgraph_st *g = n->graph;
    bool *seen = calloc(g->n ? g->n : 1, 1);
    if (seen == NULL)
        abort();
    mark_ancestors(n, seen);
    void *found = NULL;
    for (uint32_t i = 0; i < g->n && found == NULL; i++) {
        const struct CUgraphNode_st *f = g->nodes[i];
        if (!seen[i] || f->type != cudaGraphNodeTypeMemFree ||
            rt_graph_mem_bytes(f->p.mem.dptr) < bytes)
            continue;
        uint32_t allocs = 0, before = 0, frees = 0;
        for (uint32_t j = 0; j < g->n; j++) {
            const struct CUgraphNode_st *m = g->nodes[j];
            bool mem = m->type == cudaGraphNodeTypeMemAlloc || m->type == cudaGraphNodeTypeMemFree;
            if (m == n || !mem || m->p.mem.dptr != f->p.mem.dptr)
                continue;
            if (m->type == cudaGraphNodeTypeMemAlloc) {
                allocs++;
                before += seen[j];
            } else {
                frees += seen[j];
            }
        }
        if (allocs > 0 && before == allocs && frees == allocs)
            found = f->p.mem.dptr;
    }
    free(seen);
    if (found != NULL) {
        *dptr = found;
        return cudaSuccess;
    }
    return rt_graph_mem_reserve(bytes, dptr);
}

/* edges from[i] -> to[i] (CUDA 13: with optional edge data, which must be default) */
/* Memory nodes: an allocation's address is fixed when its node is made
 * (nodeParams->dptr, alloc_address()); a free node names one. */
static cudaError_t
set_alloc(struct CUgraphNode_st *n, const void *params)
{
    struct cudaMemAllocNodeParams *p = (struct cudaMemAllocNodeParams *)(uintptr_t)params;
    if (p == NULL || p->bytesize == 0)
        return rt_fail(cudaErrorInvalidValue, NULL);
    n->p.mem.bytes = p->bytesize;
    cudaError_t e = alloc_address(n, p->bytesize, &n->p.mem.dptr);
    if (e == cudaSuccess)
        p->dptr = n->p.mem.dptr;
    return e;
}

static cudaError_t
set_free(struct CUgraphNode_st *n, const void *params)
{
    if (!rt_graph_mem_owns(params))
        return rt_fail(cudaErrorInvalidValue, "cudaGraphAddMemFreeNode(%p): not memory a "
                       "graph's allocation node made", params);
    n->p.mem.dptr = (void *)(uintptr_t)params;
    return cudaSuccess;
}

API cudaError_t
cudaGraphAddMemAllocNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                         size_t nd, struct cudaMemAllocNodeParams *nodeParams)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    return add_with(pNode, graph, cudaGraphNodeTypeMemAlloc, deps, nd, set_alloc, nodeParams);
}

API cudaError_t
cudaGraphAddMemFreeNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                        size_t nd, void *dptr)
{
    RT_GUARD;
    return add_with(pNode, graph, cudaGraphNodeTypeMemFree, deps, nd, set_free, dptr);
}

API cudaError_t
cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params)
{
    RT_GUARD;
    if (node == NULL || params == NULL || node->type != cudaGraphNodeTypeMemAlloc)
        return rt_fail(cudaErrorInvalidValue, NULL);
    memset(params, 0, sizeof *params);
    params->poolProps.allocType = 1;         /* cudaMemAllocationTypePinned */
    params->poolProps.locationType = 1;      /* cudaMemLocationTypeDevice, device 0 */
    params->bytesize = node->p.mem.bytes;
    params->dptr = node->p.mem.dptr;
    return cudaSuccess;
}

API cudaError_t
cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    RT_GUARD;
    if (node == NULL || dptr_out == NULL || node->type != cudaGraphNodeTypeMemFree)
        return rt_fail(cudaErrorInvalidValue, NULL);
    memcpy(dptr_out, &node->p.mem.dptr, sizeof(void *));
    return cudaSuccess;
}

API cudaError_t
cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                         const void *edgeData, size_t n)
{
    RT_GUARD;
    (void)edgeData;
    if (graph == NULL || (n > 0 && (from == NULL || to == NULL)))
        return rt_fail(cudaErrorInvalidValue, NULL);
    for (size_t i = 0; i < n; i++) {
        struct CUgraphNode_st *t = to[i];
        if (from[i] == NULL || t == NULL || from[i]->graph != graph || t->graph != graph)
            return rt_fail(cudaErrorInvalidValue, NULL);
        t->deps = rt_grow(t->deps, &t->cap_deps, t->n_deps + 1, sizeof *t->deps);
        t->deps[t->n_deps++] = from[i];
    }
    return cudaSuccess;
}

API cudaError_t
cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    RT_GUARD;
    if (graph == NULL || numNodes == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (nodes != NULL)
        for (size_t i = 0; i < *numNodes && i < graph->n; i++)
            nodes[i] = graph->nodes[i];
    *numNodes = graph->n;
    return cudaSuccess;
}

API cudaError_t
cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *roots, size_t *numRoots)
{
    RT_GUARD;
    if (graph == NULL || numRoots == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    size_t k = 0;
    for (uint32_t i = 0; i < graph->n; i++)
        if (graph->nodes[i]->n_deps == 0) {
            if (roots != NULL && k < *numRoots)
                roots[k] = graph->nodes[i];
            k++;
        }
    *numRoots = k;
    return cudaSuccess;
}

API cudaError_t
cudaGraphNodeGetType(cudaGraphNode_t node, int *type)
{
    RT_GUARD;
    if (node == NULL || type == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *type = node->type;
    return cudaSuccess;
}

API cudaError_t
cudaGraphClone(cudaGraph_t *pClone, cudaGraph_t graph)
{
    RT_GUARD;
    if (pClone == NULL || graph == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *pClone = graph_clone(graph);
    return cudaSuccess;
}

/* ---- conditional nodes and cudaGraphAddNode -------------------------------------------- */

_Static_assert(sizeof(struct cudaGraphNodeParams) == 256 &&
               offsetof(struct cudaGraphNodeParams, conditional) == 16 &&
               sizeof(struct cudaConditionalNodeParams) == 24,
               "struct cudaGraphNodeParams as CUDA 13's driver_types.h lays it out");

API cudaError_t
cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle, cudaGraph_t graph,
                                 unsigned defaultLaunchValue, unsigned flags)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (pHandle == NULL || graph == NULL || (flags & ~(unsigned)cudaGraphCondAssignDefault))
        return rt_fail(cudaErrorInvalidValue, NULL);
    uint64_t a;
    smsim_error err = { 0 };
    if (smsim_program_malloc(rt.prog, 4, "a conditional handle", &a, &err) < 0)
        return rt_fail(cudaErrorMemoryAllocation, "%s", err.msg);
    graph->conds = rt_grow(graph->conds, &graph->cap_conds, graph->n_conds + 1,
                           sizeof *graph->conds);
    graph->conds[graph->n_conds++] = (struct cond_handle){ a, defaultLaunchValue,
                                                           (flags & cudaGraphCondAssignDefault) != 0 };
    *pHandle = a;
    return cudaSuccess;
}

/* A conditional node of p's kind and size, with its empty bodies. */
static cudaError_t
set_conditional(struct CUgraphNode_st *n, const void *params)
{
    const struct cudaConditionalNodeParams *p = params;
    bool known = false;
    for (uint32_t i = 0; i < n->graph->n_conds && !known; i++)
        known = n->graph->conds[i].addr == p->handle;
    if (!known)
        return rt_fail(cudaErrorInvalidValue, "cudaGraphAddNode: the conditional handle was "
                       "not created for this graph (cudaGraphConditionalHandleCreate)");
    if ((p->type == cudaGraphCondTypeIf && (p->size < 1 || p->size > 2)) ||
        (p->type == cudaGraphCondTypeWhile && p->size != 1) ||
        (p->type == cudaGraphCondTypeSwitch && p->size < 1) ||
        p->type < cudaGraphCondTypeIf || p->type > cudaGraphCondTypeSwitch)
        return rt_fail(cudaErrorInvalidValue, "cudaGraphAddNode: a conditional node of type %d "
                       "with %u bodies", p->type, p->size);
    n->p.cond.handle = p->handle;
    n->p.cond.type = p->type;
    n->p.cond.size = p->size;
    n->p.cond.body = calloc(p->size, sizeof *n->p.cond.body);
    if (n->p.cond.body == NULL)
        abort();
    for (uint32_t i = 0; i < p->size; i++) {
        n->p.cond.body[i] = calloc(1, sizeof *n->p.cond.body[i]);
        if (n->p.cond.body[i] == NULL)
            abort();
    }
    return cudaSuccess;
}

/* Any node by its parameters (CUDA 12.2+).  Edge data (programmatic
 * dependencies, ports) is taken as plain dependencies: work runs one item
 * at a time here, so the order is the same. */
API cudaError_t
cudaGraphAddNode(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                 const void *edgeData, size_t nd, struct cudaGraphNodeParams *p)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    (void)edgeData;
    if (pNode == NULL || p == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return add_with(pNode, graph, p->type, deps, nd, set_kernel_params, &p->kernel);
    case cudaGraphNodeTypeMemcpy:
        return add_with(pNode, graph, p->type, deps, nd, set_copy3d, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return add_with(pNode, graph, p->type, deps, nd, set_memset, &p->memset);
    case cudaGraphNodeTypeHost:
        return add_with(pNode, graph, p->type, deps, nd, set_host, &p->host);
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(pNode, graph, deps, nd, p->graph.graph);
    case cudaGraphNodeTypeEmpty:
        return add_node(graph, p->type, deps, nd, pNode);
    case cudaGraphNodeTypeWaitEvent:
    case cudaGraphNodeTypeEventRecord:
        return add_event_node(pNode, graph, deps, nd, p->eventWait.event, p->type);
    case cudaGraphNodeTypeConditional: {
        cudaError_t e = add_with(pNode, graph, p->type, deps, nd, set_conditional,
                                 &p->conditional);
        if (e == cudaSuccess)
            p->conditional.phGraph_out = (*pNode)->p.cond.body;
        return e;
    }
    default:
        return rt_fail(cudaErrorNotSupported, "cudaGraphAddNode: unsupported: a node of type "
                       "%d (kernel, memcpy, memset, host, child graph, empty, event and "
                       "conditional nodes are carried out)", p->type);
    }
}

/* ---- executable graphs ---------------------------------------------------------------- */

static cudaError_t
exec_from(struct CUgraphExec_st *x, cudaGraph_t graph)
{
    struct CUgraph_st *g = graph_clone(graph);
    uint32_t *order = malloc((g->n + 1) * sizeof *order);
    if (order == NULL)
        abort();
    if (!topo_order(g, order)) {
        free(order);
        graph_free(g);
        return rt_fail(cudaErrorInvalidValue, "cudaGraphInstantiate: the graph's dependencies "
                       "form a cycle");
    }
    graph_free(x->g);
    free(x->order);
    x->g = g;
    x->order = order;
    return cudaSuccess;
}

API cudaError_t
cudaGraphInstantiate(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long flags)
{
    RT_GUARD;
    (void)flags;                 /* auto-free on launch, upload, device launch: nothing to do */
    if (pExec == NULL || graph == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct CUgraphExec_st *x = calloc(1, sizeof *x);
    if (x == NULL)
        abort();
    cudaError_t e = exec_from(x, graph);
    if (e != cudaSuccess) {
        free(x);
        return e;
    }
    *pExec = x;
    return cudaSuccess;
}

API cudaError_t
cudaGraphInstantiateWithFlags(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long flags)
{
    RT_GUARD;
    return cudaGraphInstantiate(pExec, graph, flags);
}

API cudaError_t
cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t graph, cudaGraphExecUpdateResultInfo *info)
{
    RT_GUARD;
    if (x == NULL || graph == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    cudaError_t e = exec_from(x, graph);
    if (info != NULL) {
        info->result = e == cudaSuccess ? 0 : 1;   /* cudaGraphExecUpdateSuccess, Error */
        info->errorNode = info->errorFromNode = NULL;
    }
    return e;
}

API cudaError_t
cudaGraphExecKernelNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
                                 const struct cudaKernelNodeParams *p)
{
    RT_GUARD;
    if (x == NULL || node == NULL || node->index >= x->g->n ||
        x->g->nodes[node->index]->type != cudaGraphNodeTypeKernel)
        return rt_fail(cudaErrorInvalidValue, NULL);
    return set_kernel_params(x->g->nodes[node->index], p);
}

API cudaError_t
cudaGraphExecDestroy(cudaGraphExec_t x)
{
    RT_GUARD;
    if (x != NULL) {
        graph_free(x->g);
        free(x->order);
        free(x);
    }
    return cudaSuccess;
}

API cudaError_t
cudaGraphUpload(cudaGraphExec_t x, cudaStream_t stream)
{
    RT_GUARD;
    (void)stream;
    return x != NULL ? cudaSuccess : rt_fail(cudaErrorInvalidValue, NULL);
}

API cudaError_t
cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t stream)
{
    RT_GUARD;
    RT_REQUIRE_READY();
    if (x == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (rt_capturing(stream)) {  /* a graph launched into a capture: a child graph node */
        struct CUgraphNode_st *n;
        cudaError_t e = capture_node(stream, cudaGraphNodeTypeGraph, &n);
        if (e == cudaSuccess)
            n->p.child = graph_clone(x->g);
        return e;
    }
    cond_defaults(x->g);
    return run_graph(x->g, x->order);
}

API cudaError_t
cudaGraphUpload_ptsz(cudaGraphExec_t x, cudaStream_t stream)
{
    return cudaGraphUpload(x, RT_PT(stream));
}

API cudaError_t
cudaGraphLaunch_ptsz(cudaGraphExec_t x, cudaStream_t stream)
{
    return cudaGraphLaunch(x, RT_PT(stream));
}

/* ---- stream capture ------------------------------------------------------------------- */

bool
rt_capturing(cudaStream_t s)
{
    struct CUstream_st *st = rt_stream(s);
    return st != NULL && st->capture != NULL;
}

static void
set_tail(struct CUstream_st *s, struct CUgraphNode_st *const *nodes, uint32_t n)
{
    s->tail = rt_grow(s->tail, &s->cap_tail, n + 1, sizeof *s->tail);
    if (n > 0)
        memmove(s->tail, nodes, n * sizeof *nodes);
    s->n_tail = n;
}

/* A node of type after the capturing stream's tail, which it becomes. */
static cudaError_t
capture_node(cudaStream_t stream, int type, struct CUgraphNode_st **out)
{
    struct CUstream_st *s = rt_stream(stream);
    cudaError_t e = add_node(s->capture, type, s->tail, s->n_tail, out);
    if (e == cudaSuccess)
        set_tail(s, out, 1);
    return e;
}

cudaError_t
rt_capture_kernel(cudaStream_t s, const void *func, dim3 grid, dim3 block, void **args,
                  size_t smem, const uint32_t *cluster, bool coop)
{
    struct CUstream_st *st = rt_stream(s);
    struct CUgraphNode_st *n;
    cudaError_t e = add_node(st->capture, cudaGraphNodeTypeKernel, st->tail, st->n_tail, &n);
    if (e != cudaSuccess)
        return e;
    if ((e = set_kernel(n, func, grid, block, args, smem, cluster, coop)) != cudaSuccess) {
        n->type = cudaGraphNodeTypeEmpty;
        st->capture->n--;
        node_free(n);
        return e;
    }
    set_tail(st, &n, 1);
    return cudaSuccess;
}

cudaError_t
rt_capture_copy(cudaStream_t s, void *dst, size_t dpitch, const void *src, size_t spitch,
                size_t width, size_t height, int kind)
{
    struct CUgraphNode_st *n;
    cudaError_t e = capture_node(s, cudaGraphNodeTypeMemcpy, &n);
    if (e == cudaSuccess)
        n->p.c = copy2d(dst, dpitch, src, spitch, width, height, kind);
    return e;
}

cudaError_t
rt_capture_set(cudaStream_t s, void *dst, size_t pitch, uint32_t value, unsigned esize,
               size_t width, size_t height)
{
    struct CUgraphNode_st *n;
    cudaError_t e = capture_node(s, cudaGraphNodeTypeMemset, &n);
    if (e == cudaSuccess)
        n->p.set = (struct cudaMemsetParams){ dst, pitch, value, esize, width, height };
    return e;
}

cudaError_t
rt_capture_host(cudaStream_t s, void (*fn)(void *), void *data)
{
    struct CUgraphNode_st *n;
    cudaError_t e = capture_node(s, cudaGraphNodeTypeHost, &n);
    if (e == cudaSuccess)
        n->p.host = (struct cudaHostNodeParams){ fn, data };
    return e;
}

cudaError_t
rt_capture_alloc(cudaStream_t s, size_t bytes, void **dptr)
{
    if (dptr == NULL || bytes == 0)
        return rt_fail(cudaErrorInvalidValue, NULL);
    struct CUgraphNode_st *n;
    cudaError_t e = capture_node(s, cudaGraphNodeTypeMemAlloc, &n);
    if (e != cudaSuccess)
        return e;
    n->p.mem.bytes = bytes;
    if ((e = alloc_address(n, bytes, &n->p.mem.dptr)) != cudaSuccess) {
        n->type = cudaGraphNodeTypeEmpty;    /* stays, a node with no work */
        return e;
    }
    *dptr = n->p.mem.dptr;
    return cudaSuccess;
}

cudaError_t
rt_capture_free(cudaStream_t s, void *p)
{
    if (!rt_graph_mem_owns(p))
        return rt_fail(cudaErrorNotSupported, "unsupported: cudaFreeAsync(%p) in a stream capture "
                       "of memory the capture did not allocate", p);
    struct CUgraphNode_st *n;
    cudaError_t e = capture_node(s, cudaGraphNodeTypeMemFree, &n);
    if (e == cudaSuccess)
        n->p.mem.dptr = p;
    return e;
}

/* The graph of active capture id, or NULL (ended). */
static struct CUgraph_st *
capture_of(unsigned long long id)
{
    for (uint32_t i = 0; i < n_active; i++)
        if (active[i]->capture_id == id)
            return active[i];
    return NULL;
}

/* An event recorded in a capturing stream: a stream that waits for it
 * joins the capture after the nodes before it. */
cudaError_t
rt_capture_record(cudaEvent_t ev, cudaStream_t s)
{
    struct CUstream_st *st = rt_stream(s);
    ev->capture_id = st->capture->capture_id;
    free(ev->tail);
    ev->tail = malloc((st->n_tail + 1) * sizeof *ev->tail);
    if (ev->tail == NULL)
        abort();
    memcpy(ev->tail, st->tail, st->n_tail * sizeof *st->tail);
    ev->n_tail = st->n_tail;
    return cudaSuccess;
}

cudaError_t
rt_capture_wait(cudaStream_t s, cudaEvent_t ev)
{
    struct CUgraph_st *g = capture_of(ev->capture_id);
    if (g == NULL)               /* its capture has ended: the event is in the past */
        return cudaSuccess;
    struct CUstream_st *st = rt_stream(s);
    if (st == NULL)
        return rt_fail(cudaErrorStreamCaptureUnsupported, "unsupported: the legacy stream "
                       "waiting for an event of a stream capture");
    if (st->capture != NULL && st->capture != g)
        return rt_fail(cudaErrorStreamCaptureUnmatched, "a stream capturing one graph waits for "
                       "an event of another's capture");
    if (st->capture == NULL) {   /* the stream joins the capture */
        st->capture = g;
        st->n_tail = 0;
        g->joined = rt_grow(g->joined, &g->cap_joined, g->n_joined + 1, sizeof *g->joined);
        g->joined[g->n_joined++] = st;
    }
    for (uint32_t i = 0; i < ev->n_tail; i++) {
        bool have = false;
        for (uint32_t j = 0; j < st->n_tail && !have; j++)
            have = st->tail[j] == ev->tail[i];
        if (!have) {
            st->tail = rt_grow(st->tail, &st->cap_tail, st->n_tail + 1, sizeof *st->tail);
            st->tail[st->n_tail++] = ev->tail[i];
        }
    }
    return cudaSuccess;
}

void
rt_capture_stream_gone(struct CUstream_st *s)
{
    struct CUgraph_st *g = s->capture;
    if (g == NULL)
        return;
    for (uint32_t i = 0; i < g->n_joined; i++)
        if (g->joined[i] == s)
            g->joined[i] = g->joined[--g->n_joined];
    if (g->origin == s)
        g->origin = NULL;        /* (its capture can no longer end) */
}

static unsigned long long capture_ids;

API cudaError_t
cudaStreamBeginCapture(cudaStream_t stream, int mode)
{
    RT_GUARD;
    (void)mode;                  /* one host thread at a time anyway (cudart.h) */
    RT_REQUIRE_READY();
    struct CUstream_st *s = rt_stream(stream);
    if (s == NULL)
        return rt_fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCapture: the legacy "
                       "default stream cannot be captured");
    if (s->capture != NULL)
        return rt_fail(cudaErrorInvalidValue, "cudaStreamBeginCapture: the stream is capturing "
                       "already");
    s->capture = calloc(1, sizeof *s->capture);
    if (s->capture == NULL)
        abort();
    s->capture->capture_id = ++capture_ids;
    s->capture->origin = s;
    s->n_tail = 0;
    active = rt_grow(active, &cap_active, n_active + 1, sizeof *active);
    active[n_active++] = s->capture;
    return cudaSuccess;
}

/* Capture into graph, an existing graph the program keeps, after deps. */
API cudaError_t
cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *deps,
                              const void *edgeData, size_t nd, int mode)
{
    RT_GUARD;
    (void)mode;
    (void)edgeData;              /* ordinary dependencies (cudaGraphAddNode) */
    RT_REQUIRE_READY();
    struct CUstream_st *s = rt_stream(stream);
    if (s == NULL)
        return rt_fail(cudaErrorStreamCaptureUnsupported, "cudaStreamBeginCaptureToGraph: the "
                       "legacy default stream cannot be captured");
    if (graph == NULL || (nd > 0 && deps == NULL))
        return rt_fail(cudaErrorInvalidValue, NULL);
    if (s->capture != NULL || graph->capture_id != 0)
        return rt_fail(cudaErrorInvalidValue, "cudaStreamBeginCaptureToGraph: the stream or the "
                       "graph is capturing already");
    for (size_t i = 0; i < nd; i++)
        if (deps[i] == NULL || deps[i]->graph != graph)
            return rt_fail(cudaErrorInvalidValue, "cudaStreamBeginCaptureToGraph: a dependency "
                           "is not a node of the graph");
    s->capture = graph;
    graph->capture_id = ++capture_ids;
    graph->origin = s;
    graph->into = true;
    set_tail(s, deps, (uint32_t)nd);
    active = rt_grow(active, &cap_active, n_active + 1, sizeof *active);
    active[n_active++] = graph;
    return cudaSuccess;
}

/* The capture's next work depends on deps (Set), or on them too (Add). */
API cudaError_t
cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *deps,
                                    const void *edgeData, size_t nd, unsigned flags)
{
    RT_GUARD;
    (void)edgeData;
    struct CUstream_st *s = rt_stream(stream);
    if (s == NULL || s->capture == NULL)
        return rt_fail(cudaErrorIllegalState, "cudaStreamUpdateCaptureDependencies: the stream "
                       "is not capturing");
    if ((nd > 0 && deps == NULL) || flags > cudaStreamSetCaptureDependencies)
        return rt_fail(cudaErrorInvalidValue, NULL);
    for (size_t i = 0; i < nd; i++)
        if (deps[i] == NULL || deps[i]->graph != s->capture)
            return rt_fail(cudaErrorInvalidValue, "cudaStreamUpdateCaptureDependencies: a node "
                           "is not of the stream's capture graph");
    if (flags == cudaStreamSetCaptureDependencies) {
        set_tail(s, deps, (uint32_t)nd);
        return cudaSuccess;
    }
    for (size_t i = 0; i < nd; i++) {
        bool have = false;
        for (uint32_t j = 0; j < s->n_tail && !have; j++)
            have = s->tail[j] == deps[i];
        if (!have) {
            s->tail = rt_grow(s->tail, &s->cap_tail, s->n_tail + 1, sizeof *s->tail);
            s->tail[s->n_tail++] = deps[i];
        }
    }
    return cudaSuccess;
}

API cudaError_t
cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    RT_GUARD;
    struct CUstream_st *s = rt_stream(stream);
    if (s == NULL || s->capture == NULL)
        return rt_fail(cudaErrorIllegalState, "cudaStreamEndCapture: the stream is not "
                       "capturing");
    if (s->capture->origin != s)
        return rt_fail(cudaErrorStreamCaptureUnmatched, "cudaStreamEndCapture on a stream that "
                       "joined the capture, not the one that began it");
    struct CUgraph_st *g = s->capture;
    for (uint32_t i = 0; i < n_active; i++)
        if (active[i] == g)
            active[i] = active[--n_active];
    for (uint32_t i = 0; i < g->n_joined; i++) {   /* the streams that joined end too */
        g->joined[i]->capture = NULL;
        g->joined[i]->n_tail = 0;
    }
    free(g->joined);
    g->joined = NULL;
    g->n_joined = g->cap_joined = 0;
    g->origin = NULL;
    g->capture_id = 0;
    s->capture = NULL;
    s->n_tail = 0;
    bool into = g->into;
    g->into = false;
    if (pGraph != NULL)
        *pGraph = g;
    else if (!into)              /* (a graph captured into is the program's) */
        graph_free(g);
    return cudaSuccess;
}

API cudaError_t
cudaStreamIsCapturing(cudaStream_t stream, int *status)
{
    RT_GUARD;
    if (status == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    *status = rt_capturing(stream) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}

API cudaError_t
cudaStreamGetCaptureInfo(cudaStream_t stream, int *status, unsigned long long *id,
                         cudaGraph_t *graph, const cudaGraphNode_t **deps, const void **edgeData,
                         size_t *numDeps)
{
    RT_GUARD;
    struct CUstream_st *s = rt_stream(stream);
    bool on = rt_capturing(stream);
    if (status != NULL)
        *status = on ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id != NULL)
        *id = on ? s->capture->capture_id : 0;
    if (graph != NULL)
        *graph = on ? s->capture : NULL;
    if (deps != NULL)
        *deps = on ? (const cudaGraphNode_t *)s->tail : NULL;
    if (edgeData != NULL)
        *edgeData = NULL;
    if (numDeps != NULL)
        *numDeps = on ? s->n_tail : 0;
    return cudaSuccess;
}

API cudaError_t
cudaThreadExchangeStreamCaptureMode(int *mode)
{
    RT_GUARD;
    static __thread int cur;     /* cudaStreamCaptureModeGlobal */
    if (mode == NULL)
        return rt_fail(cudaErrorInvalidValue, NULL);
    int old = cur;
    cur = *mode;
    *mode = old;
    return cudaSuccess;
}

API cudaError_t
cudaStreamBeginCapture_ptsz(cudaStream_t stream, int mode)
{
    return cudaStreamBeginCapture(RT_PT(stream), mode);
}

API cudaError_t
cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    return cudaStreamEndCapture(RT_PT(stream), pGraph);
}

API cudaError_t
cudaStreamIsCapturing_ptsz(cudaStream_t stream, int *status)
{
    return cudaStreamIsCapturing(RT_PT(stream), status);
}

API cudaError_t
cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, int *status, unsigned long long *id,
                              cudaGraph_t *graph, const cudaGraphNode_t **deps,
                              const void **edgeData, size_t *numDeps)
{
    return cudaStreamGetCaptureInfo(RT_PT(stream), status, id, graph, deps, edgeData, numDeps);
}

API cudaError_t
cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                   const cudaGraphNode_t *deps, const void *edgeData, size_t nd,
                                   int mode)
{
    return cudaStreamBeginCaptureToGraph(RT_PT(stream), graph, deps, edgeData, nd, mode);
}

API cudaError_t
cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t *deps,
                                         const void *edgeData, size_t nd, unsigned flags)
{
    return cudaStreamUpdateCaptureDependencies(RT_PT(stream), deps, edgeData, nd, flags);
}
