// GPU microbenchmarks for calibrating dmlemu's timing model (driven by measure_microbench.py).
// Not part of the test suite. Build: nvcc -O3 -arch=sm_90 -cudart static -o microbench microbench.cu
// Usage: microbench MODE   (MODE: props | chase | chase_cg | tlb | readbw | store | fma | host)
// Each mode prints ONE JSON object on stdout; errors go to stderr and give a non-zero exit code.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(e_), __FILE__, \
                    __LINE__, cudaGetErrorString(e_));                                    \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)
#define CKL() CK(cudaGetLastError())

static const size_t KiB = 1024, MiB = 1024 * 1024, GiB = 1024ull * 1024 * 1024;

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int sm_count() {
    int v;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    return v;
}

// ---------------------------------------------------------------------------------------- props
static void mode_props() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clk = 0, memclk = 0, bus = 0, l2 = 0, drv = 0, rt = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, 0));
    CK(cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0));
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    printf("{\"name\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, \"l2_bytes\": %d, "
           "\"persisting_l2_max_bytes\": %d, \"global_mem_bytes\": %zu, \"mem_bus_width_bits\": %d, "
           "\"mem_clock_khz_attr\": %d, \"sm_clock_khz_attr\": %d, "
           "\"peak_dram_GBps_from_attrs\": %.1f, "
           "\"shared_mem_per_sm_bytes\": %zu, \"shared_mem_per_block_optin_bytes\": %zu, "
           "\"regs_per_sm\": %d, \"max_threads_per_sm\": %d, \"warp_size\": %d, "
           "\"pci_bus_id\": %d, \"driver_version\": %d, \"runtime_version\": %d, "
           "\"can_map_host_memory\": %d, \"unified_addressing\": %d}\n",
           p.name, p.major, p.minor, p.multiProcessorCount, l2, p.persistingL2CacheMaxSize,
           p.totalGlobalMem, bus, memclk, clk, 2.0 * memclk * 1e3 * (bus / 8) / 1e9,
           p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.regsPerMultiprocessor,
           p.maxThreadsPerMultiProcessor, p.warpSize, p.pciBusID, drv, rt, p.canMapHostMemory,
           p.unifiedAddressing);
}

// ---------------------------------------------------------------------------------- pointer chase
__device__ __forceinline__ uint64_t gtimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
template <bool CG>
__device__ __forceinline__ uint64_t ld_next(uint64_t p) {
    uint64_t v;
    if (CG)
        asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    else
        asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

// One thread follows the cycle: `warm` steps untimed, then `steps` (multiple of 16) timed steps.
template <bool CG>
__global__ void chase_kernel(uint64_t start, long long warm, long long steps, unsigned long long* out) {
    uint64_t p = start;
    for (long long i = 0; i < warm; i++) p = ld_next<CG>(p);
    long long c0 = clock64();
    uint64_t g0 = gtimer();
    for (long long i = 0; i < steps; i += 16) {
#pragma unroll
        for (int k = 0; k < 16; k++) p = ld_next<CG>(p);
    }
    long long c1 = clock64();
    uint64_t g1 = gtimer();
    out[0] = (unsigned long long)(c1 - c0);
    out[1] = g1 - g0;
    out[2] = p;  // keeps the chain alive
}

// node i (at base + off[i]) holds the address of node nxt[i]
__global__ void chase_build(char* base, const uint32_t* nxt, const uint64_t* off, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) *(uint64_t*)(base + off[i]) = (uint64_t)(base + off[nxt[i]]);
}

struct Rng {
    uint64_t s;
    uint64_t next() {  // splitmix64
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
};

// Sattolo: a uniformly random permutation with a single cycle through all n nodes.
static std::vector<uint32_t> single_cycle(size_t n, Rng& r) {
    std::vector<uint32_t> a(n);
    std::iota(a.begin(), a.end(), 0u);
    for (size_t i = n - 1; i > 0; i--) std::swap(a[i], a[r.next() % i]);
    return a;
}

struct ChaseResult {
    double ns, cycles;
};

// working set ws bytes, one 8-byte node per `stride` bytes (node at a random 8-aligned spot of its
// line is not needed: node at the start of its stride slot, plus `jitter` random offset in the slot
// for the TLB test), random single-cycle order.
static ChaseResult run_chase(char* dbuf, size_t ws, size_t stride, bool cg, bool jitter, Rng& r,
                             long long steps, int repeats) {
    size_t n = ws / stride;
    std::vector<uint32_t> nxt = single_cycle(n, r);
    std::vector<uint64_t> off(n);
    for (size_t i = 0; i < n; i++)
        off[i] = i * stride + (jitter ? (r.next() % (stride / 128)) * 128 : 0);
    uint32_t* dn;
    uint64_t* doff;
    unsigned long long* dout;
    CK(cudaMalloc(&dn, n * 4));
    CK(cudaMalloc(&doff, n * 8));
    CK(cudaMalloc(&dout, 3 * 8));
    CK(cudaMemcpy(dn, nxt.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(doff, off.data(), n * 8, cudaMemcpyHostToDevice));
    chase_build<<<(unsigned)((n + 255) / 256), 256>>>(dbuf, dn, doff, n);
    CKL();
    CK(cudaDeviceSynchronize());
    // warm-up: the whole cycle once and a quarter where the set may fit a cache (up to 256 MiB), else
    // 2^16 steps (TLBs); every launch continues from the node where the previous one stopped, so the
    // reuse distance of every timed access is exactly n nodes (no re-tracing of a recently visited stretch)
    long long warm = ws <= 256 * MiB ? std::min<long long>(std::max<long long>(n + n / 4, 8192), 1 << 21)
                                     : (1 << 16);
    std::vector<double> ns, cyc;
    uint64_t p = (uint64_t)(dbuf + off[0]);
    for (int rep = 0; rep < repeats; rep++) {
        if (cg)
            chase_kernel<true><<<1, 1>>>(p, warm, steps, dout);
        else
            chase_kernel<false><<<1, 1>>>(p, warm, steps, dout);
        CKL();
        unsigned long long h[3];
        CK(cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost));
        cyc.push_back((double)h[0] / steps);
        ns.push_back((double)h[1] / steps);
        p = h[2];
        warm = 0;
    }
    CK(cudaFree(dn));
    CK(cudaFree(doff));
    CK(cudaFree(dout));
    return {median(ns), median(cyc)};
}

static void mode_chase(bool cg) {
    // sizes: 4 KiB .. 4 GiB at x1 and x1.5 per octave, plus fine steps over the L2 region
    std::vector<size_t> sizes;
    for (size_t s = 4 * KiB; s <= 4 * GiB; s *= 2) {
        sizes.push_back(s);
        if (s < 4 * GiB) sizes.push_back(s + s / 2);
    }
    if (!cg) {
        for (size_t m : {20, 28, 36, 40, 44, 52, 56, 60, 64, 72, 80, 88, 112})
            sizes.push_back(m * MiB);
        for (size_t k : {160, 192, 224, 320, 384, 448})  // L1 capacity region
            sizes.push_back(k * KiB);
    } else {
        sizes.clear();  // L1 bypassed: L2 hit latency from small sets, then the same steps
        for (size_t s : {4 * KiB, 64 * KiB, 1 * MiB, 4 * MiB, 16 * MiB, 24 * MiB, 32 * MiB,
                         40 * MiB, 48 * MiB, 64 * MiB, 128 * MiB, 1 * GiB})
            sizes.push_back(s);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    size_t maxs = sizes.back();
    char* dbuf;
    CK(cudaMalloc(&dbuf, maxs));
    Rng r{12345};
    printf("{\"method\": \"one thread (<<<1,1>>>) follows a random single-cycle permutation (Sattolo) of "
           "8-byte pointers, one node per stride bytes (stride 128 B up to 256 MiB, then ws/2^21 so at most "
           "2M nodes), nodes spread over the whole working set; loads are PTX ld.global.%s.u64 so each load "
           "depends on the previous; untimed warm-up of min(max(1.25N,8192),2^21) steps (2^16 above 256 MiB), then 3 launches of 2^17 "
           "timed steps, each launch continuing from the node where the previous stopped (reuse distance of "
           "every access = N nodes), timed in-kernel with clock64 (SM cycles) and %%globaltimer (ns); median of "
           "the 3 launches\", ",
           cg ? "cg (L1 bypassed)" : "ca (L1 allocating)");
    printf("\"points\": [");
    const long long steps = 1 << 17;
    for (size_t i = 0; i < sizes.size(); i++) {
        size_t ws = sizes[i];
        size_t stride = ws <= 256 * MiB ? 128 : ws >> 21;
        stride = (stride + 127) / 128 * 128;
        auto t0 = std::chrono::steady_clock::now();
        ChaseResult c = run_chase(dbuf, ws, stride, cg, false, r, steps, 3);
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        printf("%s{\"ws_bytes\": %zu, \"stride_bytes\": %zu, \"nodes\": %zu, \"ns\": %.3f, \"cycles\": %.2f, "
               "\"clock_GHz_incore\": %.4f, \"wall_s\": %.3f}",
               i ? ", " : "", ws, stride, ws / stride, c.ns, c.cycles, c.cycles / c.ns, secs);
        fflush(stdout);
    }
    printf("]}\n");
    CK(cudaFree(dbuf));
}

// TLB: one node per 2 MiB (the GPU's large page) at a random 128-B line inside its page, so the data
// footprint stays small (<= 8192 lines) while the pages touched grow with the span.
static void mode_tlb() {
    std::vector<size_t> spans;
    for (size_t s = 8 * MiB; s <= 32 * GiB; s *= 2) spans.push_back(s);
    size_t freeb, totb;
    CK(cudaMemGetInfo(&freeb, &totb));
    while (spans.back() > freeb / 2) spans.pop_back();
    char* dbuf;
    CK(cudaMalloc(&dbuf, spans.back()));
    Rng r{777};
    printf("{\"method\": \"one thread chases a random single cycle with one 8-byte node per 2 MiB page "
           "(at a random 128-B line inside the page), ld.global.cg (L1 bypassed: the baseline is the L2 hit "
           "latency); span = pages x 2 MiB; data lines = pages (<= 16384 x 128 B = 2 MiB, L2-resident), so rises "
           "above the L2 hit latency come from address translation; same timing as the chase\", \"points\": [");
    for (size_t i = 0; i < spans.size(); i++) {
        ChaseResult c = run_chase(dbuf, spans[i], 2 * MiB, true, true, r, 1 << 16, 3);
        printf("%s{\"span_bytes\": %zu, \"pages_2MiB\": %zu, \"ns\": %.3f, \"cycles\": %.2f}", i ? ", " : "",
               spans[i], spans[i] / (2 * MiB), c.ns, c.cycles);
        fflush(stdout);
    }
    printf("]}\n");
    CK(cudaFree(dbuf));
}

// ------------------------------------------------------------------------------ read bandwidth
// The working set is cut in chunks of 16 KiB (256 threads x 4 x 16 B). Every block visits chunks
// c0, c0+rot, c0+2rot, ... (mod nchunks) with rot coprime to nchunks, so over a launch every SM
// touches the whole working set (an SM's cache helps only if the whole set fits in it).
#define RB_THREADS 256
#define RB_VEC 4
#define CHUNK_ELEMS (RB_THREADS * RB_VEC)  // uint4 per chunk
__global__ void __launch_bounds__(RB_THREADS, 8)
    read_ws(const uint4* __restrict__ buf, uint32_t nchunks, uint32_t rot, uint32_t items, unsigned* sink,
            const uint32_t* __restrict__ rots) {
    uint32_t c = (uint32_t)(((uint64_t)blockIdx.x * nchunks) / gridDim.x);
    if (rots) {  // independent walks: per-block stride and a scattered start
        rot = rots[blockIdx.x & 63];
        c = (uint32_t)(((uint64_t)blockIdx.x * 2654435761u) % nchunks);
    }
    unsigned acc = 0;
#pragma unroll 2
    for (uint32_t i = 0; i < items; i++) {
        const uint4* p = buf + (size_t)c * CHUNK_ELEMS + threadIdx.x;
        uint4 v[RB_VEC];
#pragma unroll
        for (int k = 0; k < RB_VEC; k++) v[k] = p[k * RB_THREADS];
#pragma unroll
        for (int k = 0; k < RB_VEC; k++) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
        c += rot;
        if (c >= nchunks) c -= nchunks;
    }
    if (acc == 0x9E3779B9u) sink[0] = acc;  // practically never: keeps the loads alive
}

// plain grid-stride streaming read of n uint4 (one pass), 4 loads in flight per thread
__global__ void __launch_bounds__(256) read_stream(const uint4* __restrict__ p, size_t n, unsigned* sink) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    unsigned acc = 0;
    size_t i = t;
    for (; i + 3 * T < n; i += 4 * T) {
        uint4 a = p[i], b = p[i + T], c = p[i + 2 * T], d = p[i + 3 * T];
        acc ^= a.x ^ a.y ^ a.z ^ a.w ^ b.x ^ b.y ^ b.z ^ b.w ^ c.x ^ c.y ^ c.z ^ c.w ^ d.x ^ d.y ^ d.z ^ d.w;
    }
    for (; i < n; i += T) {
        uint4 a = p[i];
        acc ^= a.x ^ a.y ^ a.z ^ a.w;
    }
    if (acc == 0x9E3779B9u) sink[0] = acc;
}

__global__ void fill_kernel(uint4* p, size_t n, unsigned seed) {
    size_t T = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += T) {
        unsigned h = (unsigned)i * 2654435761u ^ seed;
        p[i] = make_uint4(h, h ^ 0x55555555u, h + 1, h * 3 + 7);
    }
}

__global__ void __launch_bounds__(256) store_stream(uint4* p, size_t n, unsigned v, int reps = 1) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    for (int r = 0; r < reps; r++) {
    uint4 w = make_uint4(v + r, v + 1, v + 2, v + 3);
    size_t i = t;
    for (; i + 3 * T < n; i += 4 * T) {
        p[i] = w;
        p[i + T] = w;
        p[i + 2 * T] = w;
        p[i + 3 * T] = w;
    }
    for (; i < n; i += T) p[i] = w;
    }
}

__global__ void __launch_bounds__(256) copy_stream(const uint4* __restrict__ s, uint4* __restrict__ d, size_t n) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, T = (size_t)gridDim.x * blockDim.x;
    size_t i = t;
    for (; i + 3 * T < n; i += 4 * T) {
        uint4 a = s[i], b = s[i + T], c = s[i + 2 * T], e = s[i + 3 * T];
        d[i] = a;
        d[i + T] = b;
        d[i + 2 * T] = c;
        d[i + 3 * T] = e;
    }
    for (; i < n; i += T) d[i] = s[i];
}

// time `reps` launches of fn (after `warm`), each between events; median ms
template <typename F>
static double time_ms(F fn, int warm, int reps) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < warm; i++) fn();
    CKL();
    CK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        fn();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CKL();
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms);
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return median(t);
}

static uint32_t coprime_rot(uint32_t n) {
    if (n <= 1) return 0;
    uint32_t r = std::max<uint32_t>(1, (uint32_t)(n * 0.6180339887));
    while (std::gcd(r, n) != 1) r++;
    return r % n;
}

static void mode_readbw() {
    int sms = sm_count();
    std::vector<size_t> sizes;
    for (size_t s = 16 * KiB; s <= 4 * GiB; s *= 2) {
        sizes.push_back(s);
        if (s < 4 * GiB) sizes.push_back(s + s / 2);
    }
    for (size_t m : {20, 28, 40, 56, 64, 80, 112}) sizes.push_back(m * MiB);
    for (size_t k : {160, 192, 224}) sizes.push_back(k * KiB);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    size_t maxs = sizes.back();
    uint4* buf;
    unsigned* sink;
    CK(cudaMalloc(&buf, maxs));
    CK(cudaMalloc(&sink, 64));
    fill_kernel<<<sms * 8, 256>>>(buf, maxs / 16, 1u);
    CKL();
    CK(cudaDeviceSynchronize());
    const unsigned grid = sms * 8;
    const size_t chunk_bytes = CHUNK_ELEMS * 16;
    uint32_t* drots;
    CK(cudaMalloc(&drots, 64 * 4));
    printf("{\"method\": \"read-only kernel, %u blocks x %d threads (8 per SM), 16-B loads (LDG.128), 4 "
           "independent loads per thread per 16 KiB chunk; the working set is split in 16 KiB chunks and every "
           "block walks all chunks with a stride coprime to their count, so each SM sweeps the whole set; each "
           "launch reads max(16 GiB, 2 x ws) bytes; bandwidth = bytes read / median event time of 7 launches after "
           "2 warm-ups. points: independent walks (each block its own start and one of 64 strides, so blocks on "
           "different SMs rarely read the same chunk at the same time); points_lockstep: one stride for all "
           "blocks, starts spread evenly, so about grid/nchunks blocks read the same chunk at about the same "
           "time\", ",
           grid, RB_THREADS);
    for (int variant = 0; variant < 2; variant++) {
        printf(variant == 0 ? "\"points\": [" : ", \"points_lockstep\": [");
        bool first = true;
        size_t last_ws = 0;
        for (size_t i = 0; i < sizes.size(); i++) {
            uint32_t nchunks = (uint32_t)(sizes[i] / chunk_bytes);  // whole chunks: 24 KiB -> 16 KiB
            size_t ws = (size_t)nchunks * chunk_bytes;
            if (ws == last_ws) continue;
            last_ws = ws;
            uint32_t rot = coprime_rot(nchunks);
            std::vector<uint32_t> rots(64);
            for (int k = 0; k < 64; k++) {  // 64 different strides coprime to nchunks
                uint32_t r0 = nchunks <= 1 ? 0 : (uint32_t)(((uint64_t)(k + 1) * 2654435761u) % nchunks);
                while (nchunks > 1 && (r0 == 0 || std::gcd(r0, nchunks) != 1)) r0 = (r0 + 1) % nchunks;
                rots[k] = r0;
            }
            CK(cudaMemcpy(drots, rots.data(), 64 * 4, cudaMemcpyHostToDevice));
            size_t target = std::max<size_t>(16 * GiB, 2 * ws);
            uint32_t items =
                (uint32_t)((target + (size_t)grid * chunk_bytes - 1) / ((size_t)grid * chunk_bytes));
            double bytes = (double)items * grid * chunk_bytes;
            const uint32_t* rp = variant == 0 ? drots : nullptr;
            double ms = time_ms([&] { read_ws<<<grid, RB_THREADS>>>(buf, nchunks, rot, items, sink, rp); }, 2, 7);
            printf("%s{\"ws_bytes\": %zu, \"GBps\": %.1f, \"ms\": %.4f, \"bytes_per_launch\": %.0f}",
                   first ? "" : ", ", ws, bytes / ms / 1e6, ms, bytes);
            first = false;
            fflush(stdout);
        }
        printf("]");
    }
    printf(", ");
    CK(cudaFree(drots));
    // single-pass streaming read of a large buffer, for comparison (no reuse at all)
    size_t n = 4 * GiB / 16;
    double ms = time_ms([&] { read_stream<<<sms * 8, 256>>>(buf, n, sink); }, 2, 7);
    printf("\"single_pass_4GiB\": {\"method\": \"grid-stride read of 4 GiB once per launch, %d x 256 threads, "
           "4 LDG.128 in flight per thread\", \"GBps\": %.1f, \"ms\": %.4f}}\n",
           sms * 8, 4.0 * GiB / ms / 1e6, ms);
    CK(cudaFree(buf));
    CK(cudaFree(sink));
}

static void mode_store() {
    int sms = sm_count();
    size_t big = 2 * GiB;
    uint4 *a, *b;
    CK(cudaMalloc(&a, big));
    CK(cudaMalloc(&b, big));
    fill_kernel<<<sms * 8, 256>>>(a, big / 16, 3u);
    CKL();
    CK(cudaDeviceSynchronize());
    size_t n = big / 16;
    printf("{\"method\": \"grid-stride kernels, %d blocks x 256 threads, 16-B accesses, 4 per thread per loop "
           "trip; median event time of 10 launches after 3 warm-ups; copy counts bytes read + written\", ",
           sms * 8);
    double ms = time_ms([&] { store_stream<<<sms * 8, 256>>>(a, n, 7u); }, 3, 10);
    printf("\"store_2GiB\": {\"GBps\": %.1f, \"ms\": %.4f}, ", big / ms / 1e6, ms);
    {   // more blocks: does a fuller grid change the store rate?
        double ms2 = time_ms([&] { store_stream<<<sms * 32, 256>>>(a, n, 7u); }, 3, 10);
        printf("\"store_2GiB_grid4x\": {\"GBps\": %.1f, \"ms\": %.4f}, ", big / ms2 / 1e6, ms2);
    }
    double msm = time_ms([&] { CK(cudaMemsetAsync(a, 0x5a, big)); }, 3, 10);
    printf("\"cudaMemset_2GiB\": {\"GBps\": %.1f, \"ms\": %.4f}, ", big / msm / 1e6, msm);
    size_t small = 16 * MiB;  // L2-resident store stream: the same 16 MiB written 64 times in one launch
    double mss = time_ms([&] { store_stream<<<sms * 8, 256>>>(a, small / 16, 9u, 64); }, 3, 10);
    printf("\"store_16MiB_x64_in_one_launch_l2_resident\": {\"GBps\": %.1f, \"ms\": %.5f}, ",
           64.0 * small / mss / 1e6, mss);
    double msc = time_ms([&] { copy_stream<<<sms * 8, 256>>>(a, b, n); }, 3, 10);
    printf("\"copy_kernel_2GiB\": {\"GBps_read_plus_write\": %.1f, \"ms\": %.4f}, ", 2.0 * big / msc / 1e6, msc);
    double msd = time_ms([&] { CK(cudaMemcpyAsync(b, a, big, cudaMemcpyDeviceToDevice)); }, 3, 10);
    printf("\"cudaMemcpy_d2d_2GiB\": {\"GBps_read_plus_write\": %.1f, \"ms\": %.4f}, ", 2.0 * big / msd / 1e6, msd);
    double msr = time_ms([&] { read_stream<<<sms * 8, 256>>>(a, n, (unsigned*)b); }, 3, 10);
    printf("\"read_2GiB_same_grid\": {\"GBps\": %.1f, \"ms\": %.4f}}\n", big / msr / 1e6, msr);
    CK(cudaFree(a));
    CK(cudaFree(b));
}

// ---------------------------------------------------------------------------------- FMA rates
#define NCH 8
template <typename T>
__global__ void __launch_bounds__(256) fma_kernel(T* out, T b, T c, int iters) {
    T a[NCH];
#pragma unroll
    for (int k = 0; k < NCH; k++) a[k] = (T)(threadIdx.x + k);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++)
#pragma unroll
            for (int k = 0; k < NCH; k++) a[k] = fma(a[k], b, c);
    }
    T s = 0;
#pragma unroll
    for (int k = 0; k < NCH; k++) s += a[k];
    if (s == (T)-12345.0) out[0] = s;
}
__global__ void __launch_bounds__(256) hfma2_kernel(__half2* out, __half2 b, __half2 c, int iters) {
    __half2 a[NCH];
#pragma unroll
    for (int k = 0; k < NCH; k++) a[k] = __floats2half2_rn((float)(threadIdx.x & 7) * 0.1f + k, 0.5f * k);
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int u = 0; u < 16; u++)
#pragma unroll
            for (int k = 0; k < NCH; k++) a[k] = __hfma2(a[k], b, c);
    }
    __half2 s = a[0];
#pragma unroll
    for (int k = 1; k < NCH; k++) s = __hadd2(s, a[k]);
    if (__low2float(s) == -12345.0f) out[0] = s;
}

static void mode_fma() {
    int sms = sm_count();
    const int grid = sms * 16, threads = 256;  // 4096 threads per SM requested -> 2 waves of 2048
    void* out;
    CK(cudaMalloc(&out, 64));
    double thr = (double)grid * threads;
    printf("{\"method\": \"%d blocks x %d threads, %d independent FMA chains per thread (a = fma(a, b, c), "
           "b and c kernel arguments), loop unrolled 16x; FLOP = 2 per FMA lane (half2: 2 lanes, 4 FLOP per "
           "HFMA2); median event time of 7 launches after 3 warm-ups (a warm-up loop of about 1 s first, so "
           "the clock has settled); SASS checked FFMA / DFMA / HFMA2\", ",
           grid, threads, NCH);
    // ~1 s of FP32 work first to reach steady clocks/power
    {
        auto t0 = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 1.0) {
            fma_kernel<float><<<grid, threads>>>((float*)out, 0.999f, 0.001f, 4096);
            CK(cudaDeviceSynchronize());
        }
        CKL();
    }
    int it32 = 4096;
    double ms = time_ms([&] { fma_kernel<float><<<grid, threads>>>((float*)out, 0.999f, 0.001f, it32); }, 3, 7);
    double fl = thr * it32 * 16 * NCH * 2;
    printf("\"fp32\": {\"TFLOPs\": %.2f, \"ms\": %.4f, \"flop\": %.4g}, ", fl / ms / 1e9, ms, fl);
    int it64 = 1024;
    ms = time_ms([&] { fma_kernel<double><<<grid, threads>>>((double*)out, 0.999, 0.001, it64); }, 3, 7);
    fl = thr * it64 * 16 * NCH * 2;
    printf("\"fp64\": {\"TFLOPs\": %.2f, \"ms\": %.4f, \"flop\": %.4g}, ", fl / ms / 1e9, ms, fl);
    int it16 = 4096;
    __half2 hb = __floats2half2_rn(0.999f, 0.999f), hc = __floats2half2_rn(0.001f, 0.001f);
    ms = time_ms([&] { hfma2_kernel<<<grid, threads>>>((__half2*)out, hb, hc, it16); }, 3, 7);
    fl = thr * it16 * 16 * NCH * 4;
    printf("\"fp16_half2\": {\"TFLOPs\": %.2f, \"ms\": %.4f, \"flop\": %.4g}, ", fl / ms / 1e9, ms, fl);
    // fp32 once more at the end: clock drift check
    ms = time_ms([&] { fma_kernel<float><<<grid, threads>>>((float*)out, 0.999f, 0.001f, it32); }, 1, 7);
    fl = thr * it32 * 16 * NCH * 2;
    printf("\"fp32_again\": {\"TFLOPs\": %.2f, \"ms\": %.4f}}\n", fl / ms / 1e9, ms);
    CK(cudaFree(out));
}

// ----------------------------------------------------------------------------- host <-> device
static void mode_host() {
    int sms = sm_count();
    const size_t sz = 256 * MiB;
    void *hp, *hp2, *hm, *d, *d2;
    CK(cudaMallocHost(&hp, sz));
    CK(cudaMallocHost(&hp2, sz));
    CK(cudaMalloc(&d, sz));
    CK(cudaMalloc(&d2, sz));
    memset(hp, 1, sz);
    memset(hp2, 2, sz);
    printf("{\"method\": \"256 MiB transfers; pinned (cudaMallocHost) timed with events around "
           "cudaMemcpyAsync, median of 10 after 2 warm-ups; pageable (malloc, pre-touched) timed with a host "
           "clock around synchronous cudaMemcpy, median of 5 after 1 warm-up; zero-copy: cudaHostAlloc("
           "cudaHostAllocMapped) buffer read / written by a grid-stride kernel through its device pointer, "
           "median of 5 after 1 warm-up; GB = 1e9 bytes\", \"bytes\": %zu, ",
           sz);
    double ms = time_ms([&] { CK(cudaMemcpyAsync(d, hp, sz, cudaMemcpyHostToDevice)); }, 2, 10);
    printf("\"pinned_h2d_GBps\": %.2f, ", sz / ms / 1e6);
    ms = time_ms([&] { CK(cudaMemcpyAsync(hp, d, sz, cudaMemcpyDeviceToHost)); }, 2, 10);
    printf("\"pinned_d2h_GBps\": %.2f, ", sz / ms / 1e6);
    {   // both directions at once, two streams
        cudaStream_t s1, s2;
        CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
        std::vector<double> t;
        for (int r = 0; r < 7; r++) {
            CK(cudaDeviceSynchronize());
            auto t0 = std::chrono::steady_clock::now();
            CK(cudaMemcpyAsync(d, hp, sz, cudaMemcpyHostToDevice, s1));
            CK(cudaMemcpyAsync(hp2, d2, sz, cudaMemcpyDeviceToHost, s2));
            CK(cudaDeviceSynchronize());
            if (r >= 2) t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        printf("\"pinned_bidirectional_total_GBps\": %.2f, ", 2.0 * sz / median(t) / 1e9);
        CK(cudaStreamDestroy(s1));
        CK(cudaStreamDestroy(s2));
    }
    {
        void* pg = malloc(sz);
        memset(pg, 3, sz);
        for (int dir = 0; dir < 2; dir++) {
            std::vector<double> t;
            for (int r = 0; r < 6; r++) {
                CK(cudaDeviceSynchronize());
                auto t0 = std::chrono::steady_clock::now();
                if (dir == 0)
                    CK(cudaMemcpy(d, pg, sz, cudaMemcpyHostToDevice));
                else
                    CK(cudaMemcpy(pg, d, sz, cudaMemcpyDeviceToHost));
                if (r >= 1)
                    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
            }
            printf("\"pageable_%s_GBps\": %.2f, ", dir == 0 ? "h2d" : "d2h", sz / median(t) / 1e9);
        }
        free(pg);
    }
    CK(cudaHostAlloc(&hm, sz, cudaHostAllocMapped));
    memset(hm, 5, sz);
    void* dm;
    CK(cudaHostGetDevicePointer(&dm, hm, 0));
    unsigned* sink = (unsigned*)d2;
    ms = time_ms([&] { read_stream<<<sms * 8, 256>>>((const uint4*)dm, sz / 16, sink); }, 1, 5);
    printf("\"zero_copy_kernel_read_GBps\": %.2f, ", sz / ms / 1e6);
    ms = time_ms([&] { store_stream<<<sms * 8, 256>>>((uint4*)dm, sz / 16, 11u); }, 1, 5);
    printf("\"zero_copy_kernel_write_GBps\": %.2f, ", sz / ms / 1e6);
    // pinned memory from cudaMallocHost is mapped too (unified addressing): read it directly
    ms = time_ms([&] { read_stream<<<sms * 8, 256>>>((const uint4*)hp, sz / 16, sink); }, 1, 5);
    printf("\"zero_copy_kernel_read_cudaMallocHost_GBps\": %.2f}\n", sz / ms / 1e6);
    CK(cudaFreeHost(hp));
    CK(cudaFreeHost(hp2));
    CK(cudaFreeHost(hm));
    CK(cudaFree(d));
    CK(cudaFree(d2));
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s props|chase|chase_cg|tlb|readbw|store|fma|host\n", argv[0]);
        return 1;
    }
    CK(cudaSetDevice(0));
    std::string m = argv[1];
    if (m == "props") mode_props();
    else if (m == "chase") mode_chase(false);
    else if (m == "chase_cg") mode_chase(true);
    else if (m == "tlb") mode_tlb();
    else if (m == "readbw") mode_readbw();
    else if (m == "store") mode_store();
    else if (m == "fma") mode_fma();
    else if (m == "host") mode_host();
    else {
        fprintf(stderr, "unknown mode %s\n", m.c_str());
        return 1;
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
