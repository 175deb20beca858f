// divergent.cu - per-lane control flow: an if/else on the lane's data, and
// nested loops whose trip counts depend on the data (a Collatz walk and a
// digit sum), so warps diverge and reconverge repeatedly.
// PTX: nvcc -ptx -arch=sm_75 divergent.cu (make ptx); launch: traces/divergent.launch
extern "C" __global__ void divergent(const unsigned *x, unsigned *steps, unsigned *digits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned v = x[i];
    unsigned s = 0, d = 0;
    if (v & 1) {
        /* odd: length of the Collatz sequence (bounded) */
        unsigned long long c = v;
        while (c != 1 && s < 1000) {
            c = (c & 1) ? 3 * c + 1 : c / 2;
            s++;
        }
    } else {
        /* even: for each of the low 4 bits set, sum the decimal digits of v >> bit */
        for (int b = 0; b < 4; b++) {
            if ((v >> b) & 1)
                continue;
            unsigned w = v >> b;
            while (w != 0) {
                d += w % 10;
                w /= 10;
            }
        }
        s = d & 7;
    }
    steps[i] = s;
    digits[i] = d;
}
