// ftest.cu - the F-test kernel of ../shared/seeds/004 (Granger-causality
// style: for every pair (i, j) of series, compare a restricted and an
// unrestricted linear model over `rows` observations).  Written for smsim
// from the seed's description: thread (i, j) with j = blockIdx.x *
// THREADSPERDIM + threadIdx.x and i = blockIdx.y * THREADSPERDIM +
// threadIdx.y; pairs outside colsy x colsx return at once; a loop over the
// rows evaluates both models (rCols and unrCols coefficients) and
// accumulates the squared residuals; the F statistic is written to
// dfStats[i * colsx + j].
// PTX: nvcc -ptx -arch=sm_75 ftest.cu (make ptx); launch: traces/ftest.launch
#define THREADSPERDIM 16

extern "C" __global__ void
ftest(int diagFlag, int p, int rows, int colsx, int colsy, int rCols, int unrCols,
      const float *obs, int obsDim, const float *rCoeffs, int rCoeffsDim,
      const float *unrCoeffs, int unrCoeffsDim, const float *rdata, int rdataDim,
      const float *unrdata, int unrdataDim, float *dfStats)
{
    int j = blockIdx.x * THREADSPERDIM + threadIdx.x;
    int i = blockIdx.y * THREADSPERDIM + threadIdx.y;
    if (i >= colsy || j >= colsx)
        return;
    int idx = i * colsx + j;
    if (!diagFlag && i == j) {
        dfStats[idx] = 0.0f;
        return;
    }
    const float *o = obs + idx * obsDim;
    const float *rc = rCoeffs + i * rCoeffsDim, *rd = rdata + i * rdataDim;
    const float *uc = unrCoeffs + idx * unrCoeffsDim, *ud = unrdata + idx * unrdataDim;
    float rss_r = 0.0f, rss_u = 0.0f;
    for (int k = 0; k < rows; k++) {
        float est_r = 0.0f, est_u = 0.0f, y = o[k];
        for (int m = 0; m < rCols; m++)
            est_r += rc[m] * rd[k * rCols + m];
        for (int m = 0; m < unrCols; m++)
            est_u += uc[m] * ud[k * unrCols + m];
        rss_r += (y - est_r) * (y - est_r);
        rss_u += (y - est_u) * (y - est_u);
    }
    float fp = (float)p, fr = (float)rows;
    float f = ((rss_r - rss_u) * (fr - 2.0f * fp - 1.0f)) / (fp * rss_u);
    dfStats[idx] = isfinite(f) ? f : 0.0f;
}
