// libdevice math (long PTX sequences: branches, local arrays, fp64) and a
// few cache-hinted loads, FP8 and half conversions, checked against the
// host's libm within a few ulps.
#include "check.h"
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cmath>
#include <cstring>

#define N 256
#define NF 16
__global__ void k(const float *in, const double *din, float *out, double *dout) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = __ldg(&in[t]);
    double d = __ldcs(&din[t]);
    float *o = out + t * NF;
    o[0] = sinf(x); o[1] = cosf(x); o[2] = expf(x * 0.1f); o[3] = logf(fabsf(x) + 1.0f);
    o[4] = powf(fabsf(x) + 0.5f, 1.7f); o[5] = erff(x * 0.3f); o[6] = lgammaf(fabsf(x) + 0.1f);
    o[7] = cbrtf(x); o[8] = atan2f(x, 2.0f); o[9] = tanhf(x * 0.2f);
    float sv, cv; sincosf(x, &sv, &cv); o[10] = sv * cv;
    int e; o[11] = frexpf(x, &e) + e;
    o[12] = __half2float(__float2half_rn(x));
    __nv_fp8_e4m3 f8(x * 0.05f); o[13] = float(f8);
    __nv_fp8_e5m2 f5(x); o[14] = float(f5);
    o[15] = remainderf(x, 1.3f);
    double *q = dout + t * 8;
    __stcs(&q[0], sin(d)); q[1] = exp(d * 0.01); q[2] = log1p(fabs(d)); q[3] = pow(fabs(d), 0.3);
    q[4] = tgamma(fabs(d) * 0.05 + 0.5); q[5] = atan(d); q[6] = fmod(d, 2.5); q[7] = erfc(d * 0.1);
}

static bool close_f(float a, float b, float tol) { return std::fabs(a - b) <= tol * (std::fabs(b) + 1e-30f) || a == b || (std::isnan(a) && std::isnan(b)); }
static bool close_d(double a, double b, double tol) { return std::fabs(a - b) <= tol * (std::fabs(b) + 1e-300) || a == b; }

int main() {
    float hin[N]; double hd[N];
    for (int i = 0; i < N; i++) { hin[i] = (float)(i - 128) * 0.173f + 0.01f; hd[i] = (double)(i - 100) * 0.731 + 0.003; }
    float *in, *out; double *din, *dout;
    CHECK(cudaMalloc(&in, sizeof hin)); CHECK(cudaMalloc(&din, sizeof hd));
    CHECK(cudaMalloc(&out, N * NF * sizeof(float))); CHECK(cudaMalloc(&dout, N * 8 * sizeof(double)));
    CHECK(cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(din, hd, sizeof hd, cudaMemcpyHostToDevice));
    k<<<N / 64, 64>>>(in, din, out, dout);
    CHECK(cudaGetLastError());
    static float ho[N * NF]; static double hq[N * 8];
    CHECK(cudaMemcpy(ho, out, sizeof ho, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hq, dout, sizeof hq, cudaMemcpyDeviceToHost));
    int bad = 0;
    const char *names[NF] = { "sinf", "cosf", "expf", "logf", "powf", "erff", "lgammaf", "cbrtf", "atan2f", "tanhf", "sincosf", "frexpf", "half", "fp8 e4m3", "fp8 e5m2", "remainderf" };
    for (int i = 0; i < N; i++) {
        float x = hin[i]; double d = hd[i];
        int e; float fr = std::frexp(x, &e);
        float want[NF] = { std::sin(x), std::cos(x), std::exp(x * 0.1f), std::log(std::fabs(x) + 1.0f),
                           std::pow(std::fabs(x) + 0.5f, 1.7f), std::erf(x * 0.3f), std::lgamma(std::fabs(x) + 0.1f),
                           std::cbrt(x), std::atan2(x, 2.0f), std::tanh(x * 0.2f), std::sin(x) * std::cos(x), fr + e,
                           x, x * 0.05f, x, std::remainder(x, 1.3f) };
        float tol[NF] = { 2e-6f, 2e-6f, 2e-6f, 2e-6f, 4e-6f, 2e-6f, 1e-5f, 2e-6f, 2e-6f, 2e-6f, 4e-6f, 0, 1e-3f, 0.07f, 0.13f, 1e-6f };
        for (int j = 0; j < NF; j++) {
            float got = ho[i * NF + j];
            bool ok = j == 10 ? std::fabs(got - want[j]) < 1e-6f : close_f(got, want[j], tol[j]);
            if (j == 15) ok = std::fabs(got - want[j]) < 1e-5f;
            if (j == 13) ok = ok || std::fabs(got - want[j]) < 0.001f;   // e4m3: steps of 2^-9
            if (!ok && bad++ < 20) std::printf("FAIL: %s(%g) = %.9g, host %.9g\n", names[j], x, got, want[j]);
        }
        double dw[8] = { std::sin(d), std::exp(d * 0.01), std::log1p(std::fabs(d)), std::pow(std::fabs(d), 0.3),
                         std::tgamma(std::fabs(d) * 0.05 + 0.5), std::atan(d), std::fmod(d, 2.5), std::erfc(d * 0.1) };
        const char *dn[8] = { "sin", "exp", "log1p", "pow", "tgamma", "atan", "fmod", "erfc" };
        for (int j = 0; j < 8; j++)
            if (!close_d(hq[i * 8 + j], dw[j], 1e-14) && bad++ < 20)
                std::printf("FAIL: %s(%g) = %.17g, host %.17g\n", dn[j], d, hq[i * 8 + j], dw[j]);
    }
    std::printf("%s: math, %d wrong\n", bad ? "FAIL" : "PASS", bad);
    return bad != 0;
}
