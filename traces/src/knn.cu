// knn.cu - the distance kernel of Rodinia's nearest-neighbour benchmark
// (nn, `euclid`): the Euclidean distance from (lat, lng) to every record.
//
// Reference for the instruction sequence: ../shared/seeds/001, table 3-1
// (GTX 760; tables 6-1 and 9-1): the 2-D global id from ctaid.y * nctaid.x
// + ctaid.x, the bounds check, two loads at [rd8] and [rd8+4], sub, mul,
// fma, sqrt.rn.f32 and one store.  Written for smsim from that listing.
// PTX: nvcc -ptx -arch=sm_75 knn.cu (make ptx); launch: traces/knn.launch
struct latlong {
    float lat;
    float lng;
};

extern "C" __global__ void
euclid(const latlong *locations, float *distances, int num_records, float lat, float lng)
{
    int gid = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
    if (gid < num_records) {
        const latlong *p = locations + gid;
        float dlat = lat - p->lat, dlng = lng - p->lng;
        distances[gid] = sqrtf(dlat * dlat + dlng * dlng);
    }
}
