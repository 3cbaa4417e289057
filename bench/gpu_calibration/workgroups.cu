// Workgroup (thread-block) microbenchmarks for calibrating dmlemu's timing model of cooperating
// workgroups: shared memory (LDS) bandwidth, bank conflicts and latency, __syncthreads, shared and
// global atomics, warp shuffles and reductions, and a classic tiled FP32 SGEMM (no tensor cores).
// Driven by measure_workgroups.py. Not part of the test suite.
// Build: nvcc -O3 -arch=sm_90 -cudart static -o build/workgroups workgroups.cu
// Usage: workgroups MODE   (MODE: props | clock | ldsbw | banks | ldslat | sync | atomics | shfl | sgemm)
// Each mode prints ONE JSON object on stdout; errors go to stderr and give a non-zero exit code.
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cmath>
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

static double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int g_sms = 0;
static int sm_count() {
    if (!g_sms) CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    return g_sms;
}

__device__ __forceinline__ uint64_t gtimer() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned saddr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

// Every timed kernel brackets its work with __syncthreads + clock64/%globaltimer read by thread 0 and
// writes (cycles, ns) of its block to rec[2*blockIdx.x .. +1].
#define T_BEGIN                       \
    __syncthreads();                  \
    long long c0_ = clock64();        \
    uint64_t g0_ = gtimer();
#define T_END                                                      \
    __syncthreads();                                               \
    if (threadIdx.x == 0) {                                        \
        long long c1_ = clock64();                                 \
        uint64_t g1_ = gtimer();                                   \
        rec[2 * blockIdx.x] = c1_ - c0_;                           \
        rec[2 * blockIdx.x + 1] = (long long)(g1_ - g0_);          \
    }

struct Timing {
    double ms;          // CUDA-event time of the launch, median over repeats
    double blk_cycles;  // median over blocks (of the median launch) of in-kernel cycles
    double blk_ns;      // same, %globaltimer ns
    double ghz;         // blk_cycles / blk_ns
};

// runs launch() `warm` + `reps` times, events around each; per-block records of the last launch
template <typename F>
static Timing timed(F launch, int grid, long long* drec, int warm = 1, int reps = 5) {
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    for (int i = 0; i < warm; i++) {
        launch();
        CKL();
    }
    CK(cudaDeviceSynchronize());
    std::vector<double> ms, cyc, ns;
    std::vector<long long> h(2 * (size_t)grid);
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        launch();
        CKL();
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
        if (drec) {
            CK(cudaMemcpy(h.data(), drec, h.size() * 8, cudaMemcpyDeviceToHost));
            std::vector<double> c, n;
            for (int k = 0; k < grid; k++) {
                c.push_back((double)h[2 * k]);
                n.push_back((double)h[2 * k + 1]);
            }
            cyc.push_back(median(c));
            ns.push_back(median(n));
        }
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    Timing t{median(ms), NAN, NAN, NAN};
    if (drec) {
        t.blk_cycles = median(cyc);
        t.blk_ns = median(ns);
        t.ghz = t.blk_cycles / t.blk_ns;
    }
    return t;
}

static long long* rec_buf(int grid) {
    static long long* p = nullptr;
    static int cap = 0;
    if (grid > cap) {
        if (p) CK(cudaFree(p));
        CK(cudaMalloc(&p, 2 * (size_t)grid * 8));
        cap = grid;
    }
    CK(cudaMemset(p, 0, 2 * (size_t)grid * 8));
    return p;
}

// ask for the largest shared-memory carveout (the L1 rest is not used by these kernels) and return how many
// blocks of `threads` can be resident per SM
template <typename K>
static int prefer_shared(K kern, int threads) {
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, (int)cudaSharedmemCarveoutMaxShared));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, threads, 0));
    return occ;
}

static unsigned* g_sink = nullptr;
static unsigned* sink() {
    if (!g_sink) {
        CK(cudaMalloc(&g_sink, 1 << 20));
        CK(cudaMemset(g_sink, 0, 1 << 20));
    }
    return g_sink;
}

// ---------------------------------------------------------------------------------------- props
static void mode_props() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    int clk = 0, drv = 0, rt = 0, smemsm = 0, smemoptin = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));
    CK(cudaDeviceGetAttribute(&smemsm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
    CK(cudaDeviceGetAttribute(&smemoptin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    printf("{\"name\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, \"sm_clock_khz_attr\": %d, "
           "\"shared_mem_per_sm_bytes\": %d, \"shared_mem_per_block_bytes\": %zu, "
           "\"shared_mem_per_block_optin_bytes\": %d, \"reserved_shared_mem_per_block_bytes\": %zu, "
           "\"regs_per_sm\": %d, \"max_threads_per_sm\": %d, \"max_blocks_per_sm\": %d, \"warp_size\": %d, "
           "\"driver_version\": %d, \"runtime_version\": %d}\n",
           p.name, p.major, p.minor, p.multiProcessorCount, clk, smemsm, p.sharedMemPerBlock, smemoptin,
           p.reservedSharedMemPerBlock, p.regsPerMultiprocessor, p.maxThreadsPerMultiProcessor,
           p.maxBlocksPerMultiProcessor, p.warpSize, drv, rt);
}

// ---------------------------------------------------------------------------------------- clock
// clock64 ticks against %globaltimer ns, one thread spinning ~50 ms, and with every SM busy
__global__ void clock_spin(long long ns_target, long long* rec) {
    __syncthreads();
    long long c0 = clock64();
    uint64_t g0 = gtimer(), g1;
    do {
        g1 = gtimer();
    } while ((long long)(g1 - g0) < ns_target);
    long long c1 = clock64();
    if (threadIdx.x == 0) {
        rec[2 * blockIdx.x] = c1 - c0;
        rec[2 * blockIdx.x + 1] = (long long)(g1 - g0);
    }
}

static void mode_clock() {
    int sms = sm_count();
    long long* rec = rec_buf(sms);
    printf("{\"method\": \"clock_spin kernel: thread(s) spin on %%globaltimer for 50 ms and count clock64 "
           "ticks; GHz = ticks/ns; one block of 1 thread, then one block of 256 threads on every SM\", ");
    Timing t1 = timed([&] { clock_spin<<<1, 1>>>(50000000LL, rec); }, 1, rec, 1, 3);
    Timing t2 = timed([&] { clock_spin<<<sms, 256>>>(50000000LL, rec); }, sms, rec, 1, 3);
    printf("\"one_thread_GHz\": %.4f, \"all_sms_GHz\": %.4f}\n", t1.ghz, t2.ghz);
}

// ---------------------------------------------------------------------------- LDS bandwidth
// Block of BS threads, 32 KiB of shared memory (8192 words) per block; 4 blocks per SM.
// Each thread touches word base = tid*VEC (+ a row offset that is the same for all lanes), so a warp's
// access is 32 consecutive words (VEC=1) or 32 consecutive 16-B vectors (VEC=4): conflict-free.
// 16 accesses per loop trip, immediate offsets; volatile / asm volatile so none is removed.
#define BW_BS 512
#define BW_WORDS 8192
template <int VEC, bool STORE>
__global__ void __launch_bounds__(BW_BS) lds_bw(int iters, unsigned* snk, long long* rec) {
    __shared__ __align__(16) unsigned s[BW_WORDS];
    for (int i = threadIdx.x; i < BW_WORDS; i += BW_BS) s[i] = i * 2654435761u;
    unsigned acc = threadIdx.x;
    T_BEGIN
    if (VEC == 1) {
        volatile unsigned* vs = s + threadIdx.x;
        constexpr int ROW = BW_BS;  // words per row
        for (int it = 0; it < iters; it++) {
#pragma unroll
            for (int k = 0; k < 16; k++) {
                if (STORE)
                    vs[k * ROW] = acc + k;
                else
                    acc ^= vs[k * ROW];
            }
            if (STORE) acc += 3;
        }
    } else {
        unsigned a = saddr(s) + threadIdx.x * 16;
        constexpr int ROWB = BW_BS * 16;  // bytes per row of 16-B vectors
        constexpr int NROW = BW_WORDS * 4 / ROWB;
        for (int it = 0; it < iters; it++) {
#pragma unroll
            for (int k = 0; k < 16; k++) {
                unsigned ad = a + (k % NROW) * ROWB;
                if (STORE) {
                    asm volatile("st.volatile.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(ad), "r"(acc), "r"(acc + 1),
                                 "r"(acc + 2), "r"(acc + k));
                } else {
                    unsigned x, y, z, w;
                    asm volatile("ld.volatile.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                                 : "r"(ad));
                    acc ^= x ^ y ^ z ^ w;
                }
            }
            if (STORE) acc += 3;
        }
    }
    T_END
    if (acc == 0x9E3779B9u) snk[0] = acc + s[threadIdx.x];
}

static void mode_ldsbw() {
    int sms = sm_count();
    int occ = std::min(std::min(prefer_shared(lds_bw<1, false>, BW_BS), prefer_shared(lds_bw<4, false>, BW_BS)),
                       std::min(prefer_shared(lds_bw<1, true>, BW_BS), prefer_shared(lds_bw<4, true>, BW_BS)));
    const int bps = std::max(1, std::min(4, occ)), grid = sms * bps;
    long long* rec = rec_buf(grid);
    unsigned* snk = sink();
    printf("{\"occupancy_blocks_per_sm\": %d, ", occ);
    printf("\"method\": \"lds_bw kernel: %d blocks (blocks_per_sm per SM) x %d threads, 32 KiB static shared memory per "
           "block, each thread 16 shared accesses per loop trip at word tid*VEC plus a lane-uniform row offset "
           "(a warp reads/writes 32 consecutive 4-B words or 32 consecutive 16-B vectors: conflict-free), "
           "volatile (32-bit) or asm volatile ld/st.shared.v4.u32 (128-bit) so none is removed; loads XOR into a "
           "register. B/clk/SM (in-kernel) = bytes per block x blocks_per_sm / median block clock64 cycles "
           "(between two __syncthreads); whole-GPU TB/s = all bytes / CUDA-event time of the launch (median of "
           "5 after 1 warm-up), which includes launch and block start; B/clk/SM (event) = that / SMs / in-kernel "
           "GHz\", \"sms\": %d, \"blocks_per_sm\": %d, \"threads_per_block\": %d, \"points\": [",
           grid, BW_BS, sms, bps, BW_BS);
    struct Cfg {
        const char* name;
        int vec;
        bool store;
        int iters;
    } cfgs[] = {{"load_32bit", 1, false, 8192}, {"load_128bit", 4, false, 2048},
                {"store_32bit", 1, true, 8192}, {"store_128bit", 4, true, 2048}};
    bool first = true;
    for (auto& c : cfgs) {
        auto launch = [&] {
            if (c.vec == 1 && !c.store) lds_bw<1, false><<<grid, BW_BS>>>(c.iters, snk, rec);
            if (c.vec == 4 && !c.store) lds_bw<4, false><<<grid, BW_BS>>>(c.iters, snk, rec);
            if (c.vec == 1 && c.store) lds_bw<1, true><<<grid, BW_BS>>>(c.iters, snk, rec);
            if (c.vec == 4 && c.store) lds_bw<4, true><<<grid, BW_BS>>>(c.iters, snk, rec);
        };
        Timing t = timed(launch, grid, rec, 1, 5);
        double bytes_blk = (double)BW_BS * c.iters * 16 * 4 * c.vec;
        double bpc_sm = bytes_blk * bps / t.blk_cycles;
        double total = bytes_blk * grid;
        double tbps = total / (t.ms * 1e-3) / 1e12;
        printf("%s{\"name\": \"%s\", \"bytes_per_access\": %d, \"bytes_total\": %.0f, \"event_ms\": %.4f, "
               "\"block_cycles\": %.0f, \"GHz_incore\": %.4f, \"B_per_clk_per_SM_incore\": %.2f, "
               "\"B_per_clk_per_SM_event\": %.2f, \"TBps_gpu_event\": %.3f, \"TBps_gpu_incore\": %.3f}",
               first ? "" : ", ", c.name, 4 * c.vec, total, t.ms, t.blk_cycles, t.ghz, bpc_sm,
               total / (t.ms * 1e-3) / sms / (t.ghz * 1e9), tbps, bpc_sm * sms * t.ghz * 1e9 / 1e12);
        first = false;
        fflush(stdout);
    }
    printf("]}\n");
}

// ---------------------------------------------------------------------------- bank conflicts
// Throughput: 2 blocks x 1024 threads per SM; lane L of every warp loads word L*stride (+ a lane-uniform
// offset k*256, a multiple of 32 words so the bank pattern is unchanged), 16 loads per loop trip.
#define BK_WORDS 8192
__global__ void __launch_bounds__(1024) bank_tp(int stride, int iters, unsigned* snk, long long* rec) {
    __shared__ unsigned s[BK_WORDS];
    for (int i = threadIdx.x; i < BK_WORDS; i += blockDim.x) s[i] = i;
    int lane = threadIdx.x & 31;
    volatile unsigned* vs = s + ((lane * stride) & 4095);
    unsigned acc = 0;
    T_BEGIN
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 16; k++) acc ^= vs[k * 256];
    }
    T_END
    if (acc == 0x9E3779B9u) snk[0] = acc;
}

// Latency: one warp; every lane chases its own word, which holds its own shared address, so each load
// depends on the previous one and the warp's addresses keep the stride pattern.
__global__ void bank_lat(int stride, int steps, unsigned* snk, long long* rec) {
    __shared__ unsigned s[BK_WORDS];
    for (int i = threadIdx.x; i < BK_WORDS; i += blockDim.x) s[i] = saddr(&s[i]);
    int lane = threadIdx.x & 31;
    unsigned p = saddr(&s[(lane * stride) & 4095]);
    T_BEGIN
    for (int it = 0; it < steps; it += 16) {
#pragma unroll
        for (int k = 0; k < 16; k++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
    }
    T_END
    if (p == 1u) snk[0] = p;
}

static void mode_banks() {
    int sms = sm_count();
    int occ = prefer_shared(bank_tp, 1024);
    const int bps = std::max(1, std::min(2, occ)), grid = sms * bps, bs = 1024, iters = 512;
    long long* rec = rec_buf(grid);
    unsigned* snk = sink();
    printf("{\"occupancy_blocks_per_sm\": %d, \"blocks_per_sm_used\": %d, ", occ, bps);
    printf("\"method\": \"throughput: bank_tp kernel, %d blocks (2 per SM) x 1024 threads (64 warps per SM); "
           "lane L of every warp loads 32-bit word (L*stride) mod 4096 (+k*256 words, k=0..15, the same for all "
           "lanes, so the bank pattern is kept) with volatile loads, 16 per loop trip x %d trips; "
           "cycles per warp-load per SM = median block clock64 cycles / (64 warps x loads per warp). "
           "latency: bank_lat kernel, one warp (<<<1,32>>>), each lane chases a word that holds its own "
           "shared address (asm volatile ld.shared.u32 p,[p]) at (L*stride) mod 4096, 4096 dependent loads, "
           "clock64 cycles per load. stride 0 = broadcast (all lanes one word). n-way conflict = 32/(32/gcd) "
           "distinct words per bank = min(32, gcd(stride,32)) for stride >= 1\", \"points\": [",
           grid, iters);
    int strides[] = {0, 1, 2, 3, 4, 8, 16, 32, 33, 64};
    bool first = true;
    for (int st : strides) {
        Timing t = timed([&] { bank_tp<<<grid, bs>>>(st, iters, snk, rec); }, grid, rec, 1, 5);
        double warp_loads_per_sm = 32.0 * bps * iters * 16;
        double cpl = t.blk_cycles / warp_loads_per_sm;
        long long* rec1 = rec_buf(1);
        Timing l = timed([&] { bank_lat<<<1, 32>>>(st, 4096, snk, rec1); }, 1, rec1, 1, 3);
        rec = rec_buf(grid);
        int ways = st == 0 ? 1 : std::min(32, std::gcd(st, 32));
        printf("%s{\"stride_words\": %d, \"expected_ways\": %d, \"tp_cycles_per_warp_load_per_sm\": %.3f, "
               "\"tp_bytes_per_clk_per_sm\": %.2f, \"tp_event_ms\": %.4f, \"GHz_incore\": %.4f, "
               "\"lat_cycles_per_dependent_warp_load\": %.2f}",
               first ? "" : ", ", st, ways, cpl, 128.0 / cpl, t.ms, t.ghz, l.blk_cycles / 4096.0);
        first = false;
        fflush(stdout);
    }
    printf("]}\n");
}

// ---------------------------------------------------------------------------- LDS latency
// one thread chases a random single cycle (Sattolo) through N words of shared memory
__global__ void lds_chase_addr(const unsigned* __restrict__ nxt, int n, int steps, unsigned* snk, long long* rec) {
    extern __shared__ unsigned s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = saddr(&s[nxt[i]]);
    unsigned p = saddr(&s[0]);
    T_BEGIN
    if (threadIdx.x == 0) {
        for (int it = 0; it < steps; it += 16) {
#pragma unroll
            for (int k = 0; k < 16; k++) asm volatile("ld.shared.u32 %0, [%0];" : "+r"(p));
        }
    }
    T_END
    if (p == 1u) snk[0] = p;
}
__global__ void lds_chase_index(const unsigned* __restrict__ nxt, int n, int steps, unsigned* snk, long long* rec) {
    extern __shared__ unsigned s[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = nxt[i];
    volatile unsigned* vs = s;
    unsigned p = 0;
    T_BEGIN
    if (threadIdx.x == 0) {
        for (int it = 0; it < steps; it += 16) {
#pragma unroll
            for (int k = 0; k < 16; k++) p = vs[p];
        }
    }
    T_END
    if (p == 0xFFFFFFFFu) snk[0] = p;
}

struct Rng {
    uint64_t s;
    uint64_t next() {  // splitmix64
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }
};

static void mode_ldslat() {
    printf("{\"method\": \"one thread (block of 32, lanes 1-31 idle at the barrier) follows a random single-cycle "
           "permutation (Sattolo) of N 32-bit words in dynamic shared memory; 'addr' variant: each word holds the "
           "shared-window byte address of the next (asm volatile ld.shared.u32 p,[p], a pure load->load chain); "
           "'index' variant: each word holds the next index (p = s[p], needs an address shift per step); "
           "8192 dependent loads, clock64 cycles per load (median of 3 launches after 1 warm-up)\", \"points\": [");
    unsigned* snk = sink();
    long long* rec = rec_buf(1);
    int sizes[] = {256, 4096, 16384, 49152};
    bool first = true;
    Rng r{4242};
    unsigned* dn;
    CK(cudaMalloc(&dn, 49152 * 4));
    CK(cudaFuncSetAttribute(lds_chase_addr, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152 * 4));
    CK(cudaFuncSetAttribute(lds_chase_index, cudaFuncAttributeMaxDynamicSharedMemorySize, 49152 * 4));
    for (int n : sizes) {
        std::vector<unsigned> a(n);
        std::iota(a.begin(), a.end(), 0u);
        for (int i = n - 1; i > 0; i--) std::swap(a[i], a[r.next() % i]);
        std::vector<unsigned> nxt(n);  // cycle order a[0] -> a[1] -> ...
        for (int i = 0; i < n; i++) nxt[a[i]] = a[(i + 1) % n];
        CK(cudaMemcpy(dn, nxt.data(), n * 4, cudaMemcpyHostToDevice));
        const int steps = 8192;
        Timing ta = timed([&] { lds_chase_addr<<<1, 32, n * 4>>>(dn, n, steps, snk, rec); }, 1, rec, 1, 3);
        Timing ti = timed([&] { lds_chase_index<<<1, 32, n * 4>>>(dn, n, steps, snk, rec); }, 1, rec, 1, 3);
        printf("%s{\"words\": %d, \"bytes\": %d, \"addr_chase_cycles\": %.2f, \"index_chase_cycles\": %.2f, "
               "\"addr_chase_ns\": %.3f, \"GHz_incore\": %.4f}",
               first ? "" : ", ", n, n * 4, ta.blk_cycles / steps, ti.blk_cycles / steps, ta.blk_ns / steps, ta.ghz);
        first = false;
        fflush(stdout);
    }
    CK(cudaFree(dn));
    printf("]}\n");
}

// ---------------------------------------------------------------------------- __syncthreads
template <bool BAR>
__global__ void __launch_bounds__(1024) sync_loop(int iters, float a, float b, unsigned* snk, long long* rec) {
    float x = threadIdx.x;
    T_BEGIN
    for (int it = 0; it < iters; it += 8) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            x = fmaf(x, a, b);
            if (BAR) __syncthreads();
        }
    }
    T_END
    if (x == 1234.5f) snk[0] = (unsigned)x;
}

static void mode_sync() {
    int sms = sm_count();
    unsigned* snk = sink();
    printf("{\"method\": \"sync_loop kernel: every thread runs iters=16384 trips of {x = fmaf(x,a,b); "
           "__syncthreads();} (one dependent FFMA of work per barrier), and the same loop without the barrier "
           "as baseline; cycles per trip = median block clock64 cycles / iters. one_block_per_sm: grid = SMs; "
           "full_occupancy: grid = SMs x (2048/block size) blocks (all resident); barriers_per_clk_per_sm = "
           "blocks per SM x iters / block cycles\", \"points\": [");
    int sizes[] = {32, 64, 128, 256, 512, 1024};
    const int iters = 16384;
    bool first = true;
    for (int bs : sizes) {
        for (int full = 0; full < 2; full++) {
            int bps = full ? 2048 / bs : 1;
            if (bps > 32) bps = 32;  // max resident blocks per SM
            int grid = sms * bps;
            long long* rec = rec_buf(grid);
            Timing tb = timed([&] { sync_loop<true><<<grid, bs>>>(iters, 0.999f, 1.0f, snk, rec); }, grid, rec, 1, 5);
            Timing tn = timed([&] { sync_loop<false><<<grid, bs>>>(iters, 0.999f, 1.0f, snk, rec); }, grid, rec, 1, 5);
            printf("%s{\"block_size\": %d, \"blocks_per_sm\": %d, \"cycles_per_trip_with_barrier\": %.2f, "
                   "\"cycles_per_trip_without\": %.2f, \"barrier_cost_cycles\": %.2f, "
                   "\"barriers_per_clk_per_sm\": %.4f, \"event_ms\": %.4f, \"GHz_incore\": %.4f}",
                   first ? "" : ", ", bs, bps, tb.blk_cycles / iters, tn.blk_cycles / iters,
                   (tb.blk_cycles - tn.blk_cycles) / iters, bps * (double)iters / tb.blk_cycles, tb.ms, tb.ghz);
            first = false;
            fflush(stdout);
        }
    }
    printf("]}\n");
}

// ---------------------------------------------------------------------------- atomics
// MODE 0: distinct addresses (shared: s[tid]; global: g[global tid], consecutive words per warp)
// MODE 1: one address per block (shared s[0]; global g[blockIdx*32], a 128-B line per block)
// MODE 2: one address for the whole grid (global only)
// increment 1 + (tid&1) so a warp's increments differ (no compiler warp aggregation of a constant)
// RT: the shared address is s[tid & zmask] with zmask = 0 passed at run time, so the compiler cannot see that
// it is uniform and emits one atomic per lane (with a compile-time uniform address it sums the warp's
// increments with REDUX and issues one atomic per warp: see the SASS check)
template <typename T, int MODE, bool RT = false>
__global__ void __launch_bounds__(1024) atom_shared(int iters, T* out, long long* rec, int zmask = 0) {
    __shared__ T s[1024];
    s[threadIdx.x] = (T)0;
    T* a = MODE == 0 ? &s[threadIdx.x] : RT ? &s[threadIdx.x & zmask] : &s[0];
    T v = (T)(1 + (threadIdx.x & 1));
    T_BEGIN
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) atomicAdd(a, v);
    }
    T_END
    if (blockIdx.x == 0) out[threadIdx.x] = s[threadIdx.x];
}

template <typename T, int MODE, bool RET, bool RT = false>
__global__ void __launch_bounds__(256) atom_global(int iters, T* g, T* out, int zmask = 0) {
    size_t gt = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t z = RT ? (threadIdx.x & zmask) : 0;  // RT: a run-time zero, so the address is not provably uniform
    T* a = MODE == 0 ? &g[gt] : MODE == 1 ? &g[blockIdx.x * 32 + z] : &g[z];
    T v = (T)(1 + (threadIdx.x & 1));
    T acc = 0;
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            if (RET)
                acc += atomicAdd(a, v);
            else
                atomicAdd(a, v);
        }
    }
    if (RET && acc == (T)-7) out[0] = acc;
}

// CAS-loop increment; SHARED: on shared memory (MODE 0 s[tid], 1 s[0]); else global (MODE 0 g[gt], 1 g[block*32])
template <bool SHARED, int MODE>
__global__ void __launch_bounds__(256) cas_loop(int iters, unsigned* g, unsigned* out, long long* rec) {
    __shared__ unsigned s[256];
    s[threadIdx.x] = 0;
    size_t gt = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    unsigned* a = SHARED ? (MODE == 0 ? &s[threadIdx.x] : &s[0]) : (MODE == 0 ? &g[gt] : &g[blockIdx.x * 32]);
    unsigned v = 1 + (threadIdx.x & 1);
    unsigned tries = 0;
    T_BEGIN
    for (int it = 0; it < iters; it++) {
        unsigned old = *(volatile unsigned*)a, assumed;
        do {
            assumed = old;
            old = atomicCAS(a, assumed, assumed + v);
            tries++;
        } while (old != assumed);
    }
    T_END
    if (SHARED && blockIdx.x == 0) out[threadIdx.x] = s[threadIdx.x];
    out[1024 + gt] = tries;
}

template <typename T>
static double expected_sum(int threads, int ops_per_thread) {  // sum of 1 + (tid&1) over threads
    double s = 0;
    for (int t = 0; t < threads; t++) s += 1 + (t & 1);
    return s * ops_per_thread;
}

static void mode_atomics() {
    int sms = sm_count();
    printf("{\"method\": \"shared: atom_shared kernel, 2 blocks per SM x 1024 threads, 8 atomicAdd per loop trip "
           "(return unused), increment 1+(tid&1); distinct = s[tid] (a warp hits 32 consecutive words), "
           "one_per_block = s[0]; ops/clk/SM = ops per block x 2 / median block clock64 cycles. global: "
           "atom_global kernel, 8 blocks per SM x 256 threads, 8 atomicAdd per trip; distinct = g[global tid] "
           "(coalesced, 1 MiB footprint, L2-resident), one_per_block = g[block*32], one_address = g[0] for the "
           "whole grid; 'ret' variants use the returned value (ATOM), others discard it (RED); ops/s from CUDA "
           "event time (median of 5 after 1 warm-up), ops/clk/SM = ops/s / SMs / in-kernel GHz measured in the "
           "shared runs. CAS: cas_loop kernel, 8 blocks per SM x 256 threads, each thread does iters successful "
           "read+atomicCAS-retry increments; ops = successful increments; tries = CAS instructions executed. "
           "Iteration counts are sized by a first launch to take roughly 2-20 ms. Final sums are checked\", "
           "\"points\": [");
    bool first = true;
    unsigned* dout;
    CK(cudaMalloc(&dout, (1024 + (size_t)sms * 2048) * 8));
    double ghz_ref = NAN;
    auto emit = [&](const char* name, double ops, Timing t, double ghz, const char* check, double tries) {
        double ops_s = ops / (t.ms * 1e-3);
        double incore = std::isnan(t.blk_cycles) ? NAN : ops / (t.blk_cycles * sms);
        printf("%s{\"name\": \"%s\", \"ops\": %.0f, \"event_ms\": %.4f, \"Gops_per_s\": %.3f, "
               "\"ops_per_clk_per_sm_event\": %.4f, \"ops_per_clk_per_sm_incore\": %.4f, \"ops_per_clk_gpu_event\": %.4f, "
               "\"GHz_used\": %.4f, \"check\": \"%s\", \"cas_tries_per_op\": %.3f}",
               first ? "" : ", ", name, ops, t.ms, ops_s / 1e9, ops_s / sms / (ghz * 1e9), incore,
               ops_s / (ghz * 1e9), ghz, check, tries);
        first = false;
        fflush(stdout);
    };
    // size iterations: run with `probe` iters, scale to ~target ms, clamp
    auto size_iters = [&](auto launch, int probe, double target_ms, int maxit) {
        launch(probe);
        CKL();
        CK(cudaDeviceSynchronize());
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        CK(cudaEventRecord(a));
        launch(probe);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        float ms;
        CK(cudaEventElapsedTime(&ms, a, b));
        CK(cudaEventDestroy(a));
        CK(cudaEventDestroy(b));
        double it = probe * target_ms / std::max(ms, 0.01f);
        return (int)std::max(1.0, std::min((double)maxit, it));
    };
    // ---- shared
    {
        int occ = std::min(std::min(prefer_shared(atom_shared<unsigned, 0>, 1024), prefer_shared(atom_shared<unsigned, 1>, 1024)),
                           std::min(prefer_shared(atom_shared<float, 0>, 1024), prefer_shared(atom_shared<float, 1>, 1024)));
        occ = std::min(occ, prefer_shared(atom_shared<unsigned, 1, true>, 1024));
        const int bps = std::max(1, std::min(2, occ)), grid = sms * bps, bs = 1024;
        long long* rec = rec_buf(grid);
        // u32 distinct, u32 one, f32 distinct, f32 one
        for (int variant = 0; variant < 5; variant++) {
            bool isf = variant == 2 || variant == 3;
            int mode = variant == 4 ? 1 : variant & 1;
            auto L = [&](int it) {
                if (variant == 0) atom_shared<unsigned, 0><<<grid, bs>>>(it, (unsigned*)dout, rec);
                if (variant == 1) atom_shared<unsigned, 1><<<grid, bs>>>(it, (unsigned*)dout, rec);
                if (variant == 2) atom_shared<float, 0><<<grid, bs>>>(it, (float*)dout, rec);
                if (variant == 3) atom_shared<float, 1><<<grid, bs>>>(it, (float*)dout, rec);
                if (variant == 4) atom_shared<unsigned, 1, true><<<grid, bs>>>(it, (unsigned*)dout, rec, 0);
            };
            int iters = size_iters(L, 4, 5.0, 4096);
            if (isf && mode == 1) iters = std::min(iters, 64);  // float sum exactness: 1024*1.5*8*64 < 2^24
            if (isf && mode == 0) iters = std::min(iters, 4096);
            Timing t = timed([&] { L(iters); }, grid, rec, 1, 5);
            if (std::isnan(ghz_ref)) ghz_ref = t.ghz;
            // check block 0's final values
            char chk[160];
            if (!isf) {
                std::vector<unsigned> h(1024);
                CK(cudaMemcpy(h.data(), dout, 4096, cudaMemcpyDeviceToHost));
                double got = mode ? h[0] : 0, exp = mode ? expected_sum<unsigned>(1024, iters * 8) : 0;
                bool ok = true;
                if (!mode)
                    for (int t2 = 0; t2 < 1024; t2++) ok &= h[t2] == (unsigned)((1 + (t2 & 1)) * iters * 8);
                else
                    ok = fabs(got - fmod(exp, 4294967296.0)) < 0.5;
                snprintf(chk, sizeof chk, "%s", ok ? "sums ok" : "SUM MISMATCH");
            } else {
                std::vector<float> h(1024);
                CK(cudaMemcpy(h.data(), dout, 4096, cudaMemcpyDeviceToHost));
                bool ok = true;
                if (!mode)
                    for (int t2 = 0; t2 < 1024; t2++) ok &= h[t2] == (float)((1 + (t2 & 1)) * iters * 8);
                else
                    ok = h[0] == (float)expected_sum<float>(1024, iters * 8);
                snprintf(chk, sizeof chk, "%s", ok ? "sums ok" : "SUM MISMATCH");
            }
            const char* names[] = {"shared_u32_distinct", "shared_u32_one_address_per_block_compiler_aggregated",
                                   "shared_f32_distinct", "shared_f32_one_address_per_block",
                                   "shared_u32_one_address_per_block_per_lane"};
            emit(names[variant], (double)grid * bs * iters * 8, t, t.ghz, chk, NAN);
        }
    }
    if (std::isnan(ghz_ref)) ghz_ref = 1.98;
    // ---- global
    {
        const int bs = 256, grid = sms * 8;
        size_t n = (size_t)grid * bs;
        void* g;
        CK(cudaMalloc(&g, n * 4));
        struct V {
            const char* name;
            int id;
        } vs[] = {{"global_u32_distinct_red", 0},        {"global_u32_distinct_ret", 1},
                  {"global_f32_distinct_red", 2},        {"global_u32_one_address_per_block_red_compiler_aggregated", 3},
                  {"global_f32_one_address_per_block_red", 4}, {"global_u32_one_address_red_compiler_aggregated", 5},
                  {"global_u32_one_address_ret_compiler_aggregated", 6},     {"global_f32_one_address_red", 7},
                  {"global_u32_one_address_per_block_red_per_lane", 8}, {"global_u32_one_address_red_per_lane", 9},
                  {"global_u32_one_address_ret_per_lane", 10}};
        for (auto& v : vs) {
            auto L = [&](int it) {
                switch (v.id) {
                    case 0: atom_global<unsigned, 0, false><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout); break;
                    case 1: atom_global<unsigned, 0, true><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout); break;
                    case 2: atom_global<float, 0, false><<<grid, bs>>>(it, (float*)g, (float*)dout); break;
                    case 3: atom_global<unsigned, 1, false><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout); break;
                    case 4: atom_global<float, 1, false><<<grid, bs>>>(it, (float*)g, (float*)dout); break;
                    case 5: atom_global<unsigned, 2, false><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout); break;
                    case 6: atom_global<unsigned, 2, true><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout); break;
                    case 7: atom_global<float, 2, false><<<grid, bs>>>(it, (float*)g, (float*)dout); break;
                    case 8: atom_global<unsigned, 1, false, true><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout, 0); break;
                    case 9: atom_global<unsigned, 2, false, true><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout, 0); break;
                    case 10: atom_global<unsigned, 2, true, true><<<grid, bs>>>(it, (unsigned*)g, (unsigned*)dout, 0); break;
                }
            };
            int iters = size_iters(L, 2, 5.0, 2048);
            CK(cudaMemset(g, 0, n * 4));
            Timing t = timed([&] { L(iters); }, grid, nullptr, 0, 1);  // one launch from zero: checkable
            char chk[160] = "not checked";
            if (v.id == 0 || v.id == 5 || v.id == 9) {
                std::vector<unsigned> h(n);
                CK(cudaMemcpy(h.data(), g, n * 4, cudaMemcpyDeviceToHost));
                bool ok = true;
                if (v.id == 0)
                    for (size_t i = 0; i < n; i++) ok &= h[i] == (unsigned)((1 + (i & 1)) * iters * 8);
                else
                    ok = fabs(h[0] - fmod(expected_sum<unsigned>(grid * bs, iters * 8), 4294967296.0)) < 0.5;
                snprintf(chk, sizeof chk, "%s", ok ? "sums ok" : "SUM MISMATCH");
            }
            Timing t2 = timed([&] { L(iters); }, grid, nullptr, 1, 5);
            (void)t;
            emit(v.name, (double)grid * bs * iters * 8, t2, ghz_ref, chk, NAN);
        }
        CK(cudaFree(g));
        // ---- CAS loops
        const char* cnames[] = {"cas_loop_shared_distinct", "cas_loop_shared_one_address_per_block",
                                "cas_loop_global_distinct", "cas_loop_global_one_address_per_block"};
        unsigned* gc;
        CK(cudaMalloc(&gc, n * 4));
        long long* rec = rec_buf(grid);
        for (int c = 0; c < 4; c++) {
            auto L = [&](int it) {
                if (c == 0) cas_loop<true, 0><<<grid, bs>>>(it, gc, (unsigned*)dout, rec);
                if (c == 1) cas_loop<true, 1><<<grid, bs>>>(it, gc, (unsigned*)dout, rec);
                if (c == 2) cas_loop<false, 0><<<grid, bs>>>(it, gc, (unsigned*)dout, rec);
                if (c == 3) cas_loop<false, 1><<<grid, bs>>>(it, gc, (unsigned*)dout, rec);
            };
            int iters = size_iters(L, 1, 5.0, 1024);
            CK(cudaMemset(gc, 0, n * 4));
            Timing t = timed([&] { L(iters); }, grid, rec, 0, 1);
            std::vector<unsigned> h(1024 + n);
            CK(cudaMemcpy(h.data(), dout, (1024 + n) * 4, cudaMemcpyDeviceToHost));
            std::vector<unsigned> hg(n);
            CK(cudaMemcpy(hg.data(), gc, n * 4, cudaMemcpyDeviceToHost));
            bool ok = true;
            if (c == 0)
                for (int i = 0; i < bs; i++) ok &= h[i] == (unsigned)((1 + (i & 1)) * iters);
            if (c == 1) ok = h[0] == (unsigned)(bs * 1.5 * iters);
            if (c == 2)
                for (size_t i = 0; i < n; i++) ok &= hg[i] == (unsigned)((1 + (i & 1)) * iters);
            if (c == 3)
                for (int b = 0; b < grid; b++) ok &= hg[b * 32] == (unsigned)(bs * 1.5 * iters);
            double tries = 0;
            for (size_t i = 0; i < n; i++) tries += h[1024 + i];
            Timing t2 = timed([&] { L(iters); }, grid, rec, 1, 3);
            (void)t;
            char chk[64];
            snprintf(chk, sizeof chk, "%s", ok ? "sums ok" : "SUM MISMATCH");
            double ops = (double)n * iters;
            emit(cnames[c], ops, t2, ghz_ref, chk, tries / ops);
        }
        CK(cudaFree(gc));
    }
    CK(cudaFree(dout));
    printf("]}\n");
}

// ---------------------------------------------------------------------------- shuffles
// latency: one warp, a dependent chain of shuffles (xor masks 1,2,4,8,16 in turn, or down/idx/up),
// or a dependent chain of full warp reductions
template <int KIND>  // 0 xor, 1 down, 2 up, 3 idx (from lane (lane+1)&31), 4 redux (__reduce_add_sync)
__global__ void shfl_lat(int steps, unsigned* snk, long long* rec) {
    unsigned x = threadIdx.x * 7 + 1;
    T_BEGIN
    for (int it = 0; it < steps; it += 20) {
#pragma unroll
        for (int k = 0; k < 20; k++) {
            if (KIND == 0) x = __shfl_xor_sync(0xffffffffu, x, 1 << (k % 5));
            if (KIND == 1) x = __shfl_down_sync(0xffffffffu, x, 1 + (k % 5));
            if (KIND == 2) x = __shfl_up_sync(0xffffffffu, x, 1 + (k % 5));
            if (KIND == 3) x = __shfl_sync(0xffffffffu, x, (threadIdx.x + 1 + k) & 31);
            if (KIND == 4) x = __reduce_add_sync(0xffffffffu, x) ^ k;
        }
    }
    T_END
    if (x == 0x9E3779B9u) snk[0] = x;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int m = 16; m >= 1; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
// R independent reductions per thread, `steps` dependent rounds (each round's result scaled by 1/32
// feeds the next round: one extra FMUL per round)
template <int R>
__global__ void __launch_bounds__(1024) reduce_chain(int steps, unsigned* snk, long long* rec) {
    float v[R];
#pragma unroll
    for (int r = 0; r < R; r++) v[r] = threadIdx.x * 0.01f + r;
    T_BEGIN
    for (int it = 0; it < steps; it++) {
#pragma unroll
        for (int r = 0; r < R; r++) v[r] = warp_sum(v[r]) * 0.03125f;
    }
    T_END
    float s = 0;
#pragma unroll
    for (int r = 0; r < R; r++) s += v[r];
    if (s == 1234.5f) snk[0] = (unsigned)s;
}

// throughput: 8 independent xor-shuffle chains per thread, 2 blocks x 1024 threads per SM
__global__ void __launch_bounds__(1024) shfl_tp(int iters, unsigned* snk, long long* rec) {
    unsigned x[8];
#pragma unroll
    for (int j = 0; j < 8; j++) x[j] = threadIdx.x * 13 + j;
    T_BEGIN
    for (int it = 0; it < iters; it++) {
#pragma unroll
        for (int k = 0; k < 5; k++)
#pragma unroll
            for (int j = 0; j < 8; j++) x[j] = __shfl_xor_sync(0xffffffffu, x[j], 1 << k);
    }
    T_END
    unsigned s = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) s ^= x[j];
    if (s == 0x9E3779B9u) snk[0] = s;
}

static void mode_shfl() {
    int sms = sm_count();
    unsigned* snk = sink();
    long long* rec1 = rec_buf(1);
    printf("{\"method\": \"latency: one warp (<<<1,32>>>), a chain of 20480 dependent __shfl_*_sync on a "
           "32-bit register (xor masks 1,2,4,8,16 in turn; down/up by 1..5; idx from lane (lane+1+k)&31), "
           "__reduce_add_sync chain (REDUX, plus one XOR per step), clock64 cycles per operation (median of 3 "
           "launches after 1 warm-up). reduction: warp_sum = 5 steps of v += __shfl_xor_sync(v, 16,8,4,2,1) "
           "(FP32), chained (result x 1/32 feeds the next reduction: one FMUL per reduction included); "
           "cycles per reduction for one warp with 1 chain, and reductions/clk/SM with 2x1024 threads per SM and "
           "4 independent chains per thread. shuffle throughput: shfl_tp kernel, 2 blocks x 1024 threads per SM, "
           "8 independent xor chains per thread, 40 shuffles per trip; warp-shuffles per clk per SM = 64 warps x "
           "shuffles per warp / median block cycles\", ");
    const int steps = 20480;
    const char* names[] = {"shfl_xor", "shfl_down", "shfl_up", "shfl_idx", "reduce_add_sync_redux"};
    printf("\"latency_cycles\": {");
    for (int kind = 0; kind < 5; kind++) {
        auto L = [&] {
            if (kind == 0) shfl_lat<0><<<1, 32>>>(steps, snk, rec1);
            if (kind == 1) shfl_lat<1><<<1, 32>>>(steps, snk, rec1);
            if (kind == 2) shfl_lat<2><<<1, 32>>>(steps, snk, rec1);
            if (kind == 3) shfl_lat<3><<<1, 32>>>(steps, snk, rec1);
            if (kind == 4) shfl_lat<4><<<1, 32>>>(steps, snk, rec1);
        };
        Timing t = timed(L, 1, rec1, 1, 3);
        printf("%s\"%s\": %.3f", kind ? ", " : "", names[kind], t.blk_cycles / steps);
    }
    printf("}, ");
    {
        const int rs = 4096;
        Timing t = timed([&] { reduce_chain<1><<<1, 32>>>(rs, snk, rec1); }, 1, rec1, 1, 3);
        printf("\"warp_reduction_5_shfl_fadd_cycles_one_warp\": %.3f, ", t.blk_cycles / rs);
        int grid = sms * 2;
        long long* rec = rec_buf(grid);
        const int rs2 = 1024;
        Timing t2 = timed([&] { reduce_chain<4><<<grid, 1024>>>(rs2, snk, rec); }, grid, rec, 1, 5);
        double red_per_sm = 64.0 * 4 * rs2;
        printf("\"warp_reductions_per_clk_per_sm_full\": %.4f, \"cycles_per_warp_reduction_per_sm_full\": %.3f, ",
               red_per_sm / t2.blk_cycles, t2.blk_cycles / red_per_sm);
        const int it = 1024;
        rec = rec_buf(grid);
        Timing t3 = timed([&] { shfl_tp<<<grid, 1024>>>(it, snk, rec); }, grid, rec, 1, 5);
        double sh = 64.0 * it * 40;
        printf("\"shfl_xor_warp_ops_per_clk_per_sm\": %.4f, \"shfl_xor_lane_ops_per_s_gpu_event\": %.4e, "
               "\"GHz_incore\": %.4f, \"event_ms\": %.4f}\n",
               sh / t3.blk_cycles, sh * 32 * sms / (t3.ms * 1e-3), t3.ghz, t3.ms);
    }
}

// ---------------------------------------------------------------------------- tiled SGEMM
// C = A x B, row-major, M=N=K=4096 FP32, FFMA on the CUDA cores. Block tile BM x BN, K-step BK, each thread a
// TM x TN register tile; A tile stored transposed in shared memory (As[BK][BM]) so both operands are read
// as float4 along M / N; global loads float4; single-buffered (two __syncthreads per K-step).
template <int BM, int BN, int BK, int TM, int TN, int MINB = 1>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), MINB)
    sgemm_tiled(int M, int N, int K, const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
    constexpr int NT = (BM / TM) * (BN / TN);
    __shared__ __align__(16) float As[BK][BM];
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tr = tid / (BN / TN), tc = tid % (BN / TN);
    const float* Ab = A + (size_t)blockIdx.y * BM * K;
    const float* Bb = B + (size_t)blockIdx.x * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.f;
    float rm[TM], rn[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
        for (int l = tid; l < BM * BK / 4; l += NT) {
            int r = l / (BK / 4), c = (l % (BK / 4)) * 4;
            float4 v = *(const float4*)(Ab + (size_t)r * K + k0 + c);
            As[c][r] = v.x;
            As[c + 1][r] = v.y;
            As[c + 2][r] = v.z;
            As[c + 3][r] = v.w;
        }
#pragma unroll
        for (int l = tid; l < BK * BN / 4; l += NT) {
            int r = l / (BN / 4), c = (l % (BN / 4)) * 4;
            *(float4*)&Bs[r][c] = *(const float4*)(Bb + (size_t)(k0 + r) * N + c);
        }
        __syncthreads();
#pragma unroll
        for (int d = 0; d < BK; d++) {
#pragma unroll
            for (int i = 0; i < TM; i += 4) {
                float4 t = *(const float4*)&As[d][tr * TM + i];
                rm[i] = t.x;
                rm[i + 1] = t.y;
                rm[i + 2] = t.z;
                rm[i + 3] = t.w;
            }
#pragma unroll
            for (int j = 0; j < TN; j += 4) {
                float4 t = *(const float4*)&Bs[d][tc * TN + j];
                rn[j] = t.x;
                rn[j + 1] = t.y;
                rn[j + 2] = t.z;
                rn[j + 3] = t.w;
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(rm[i], rn[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; i++) {
        float* crow = C + (size_t)(blockIdx.y * BM + tr * TM + i) * N + blockIdx.x * BN + tc * TN;
#pragma unroll
        for (int j = 0; j < TN; j += 4)
            *(float4*)&crow[j] = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    }
}

static void mode_sgemm() {
    const int M = 4096, N = 4096, K = 4096;
    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
    std::vector<float> hA(na), hB(nb), hC(nc);
    Rng r{2026};
    for (auto& x : hA) x = (float)(r.uniform() * 2 - 1);
    for (auto& x : hB) x = (float)(r.uniform() * 2 - 1);
    float *A, *B, *C;
    CK(cudaMalloc(&A, na * 4));
    CK(cudaMalloc(&B, nb * 4));
    CK(cudaMalloc(&C, nc * 4));
    CK(cudaMemcpy(A, hA.data(), na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(B, hB.data(), nb * 4, cudaMemcpyHostToDevice));
    // sampled float64 reference
    const int NS = 512;
    std::vector<int> si(NS), sj(NS);
    std::vector<double> ref(NS), refabs(NS);
    for (int s = 0; s < NS; s++) {
        si[s] = r.next() % M;
        sj[s] = r.next() % N;
        double acc = 0, aa = 0;
        for (int k = 0; k < K; k++) {
            double p = (double)hA[(size_t)si[s] * K + k] * hB[(size_t)k * N + sj[s]];
            acc += p;
            aa += fabs(p);
        }
        ref[s] = acc;
        refabs[s] = aa;
    }
    double flop = 2.0 * M * N * K;
    printf("{\"method\": \"sgemm_tiled<BM,BN,BK,TM,TN>: C = A B, row-major FP32, M=N=K=4096, random U(-1,1) inputs; "
           "grid (N/BN, M/BM), (BM/TM)(BN/TN) threads per block, each thread a TMxTN register tile of FP32 "
           "accumulators (FFMA, CUDA cores, no tensor cores, no cuBLAS); per K-step the block stages a BMxBK tile "
           "of A (stored transposed) and a BKxBN tile of B in shared memory with float4 global loads, "
           "__syncthreads, then BK rank-1 updates reading float4 from shared memory, __syncthreads "
           "(single-buffered, no async copies). TFLOP/s = 2MNK / median CUDA-event time of 7 launches after 2 "
           "warm-ups. Checked: C poisoned (NaN) before the first launch, %d sampled entries against a float64 host "
           "reference: max |err| / sum|a_ik b_kj|\", \"M\": %d, \"N\": %d, \"K\": %d, \"points\": [",
           NS, M, N, K);
    bool first = true;
    auto run = [&](const char* name, auto kern, int bm, int bn, int threads) {
        dim3 grid(N / bn, M / bm);
        CK(cudaMemset(C, 0xFF, nc * 4));
        kern<<<grid, threads>>>(M, N, K, A, B, C);
        CKL();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(hC.data(), C, nc * 4, cudaMemcpyDeviceToHost));
        double maxrel = 0;
        bool nan = false;
        for (int s = 0; s < NS; s++) {
            double c = hC[(size_t)si[s] * N + sj[s]];
            if (std::isnan(c)) nan = true;
            maxrel = std::max(maxrel, fabs(c - ref[s]) / refabs[s]);
        }
        size_t unwritten = 0;
        for (size_t i = 0; i < nc; i++) unwritten += std::isnan(hC[i]) ? 1 : 0;
        Timing t = timed([&] { kern<<<grid, threads>>>(M, N, K, A, B, C); }, 0, nullptr, 2, 7);
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, kern));
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, threads, 0));
        printf("%s{\"name\": \"%s\", \"threads\": %d, \"regs_per_thread\": %d, \"static_smem_bytes\": %zu, "
               "\"blocks_per_sm\": %d, \"ms\": %.4f, \"TFLOPs\": %.3f, \"max_err_rel_to_abs_sum\": %.3e, "
               "\"nan_in_samples\": %s, \"unwritten_or_nan_elements\": %zu}",
               first ? "" : ", ", name, threads, fa.numRegs, fa.sharedSizeBytes, occ, t.ms, flop / (t.ms * 1e-3) / 1e12,
               maxrel, nan ? "true" : "false", unwritten);
        first = false;
        fflush(stdout);
    };
    run("BM128_BN128_BK8_TM8_TN8", sgemm_tiled<128, 128, 8, 8, 8>, 128, 128, 256);
    run("BM128_BN128_BK16_TM8_TN8", sgemm_tiled<128, 128, 16, 8, 8>, 128, 128, 256);
    run("BM64_BN64_BK8_TM4_TN4", sgemm_tiled<64, 64, 8, 4, 4>, 64, 64, 256);
    run("BM64_BN64_BK16_TM8_TN8", sgemm_tiled<64, 64, 16, 8, 8>, 64, 64, 64);
    run("BM128_BN128_BK8_TM8_TN8_minblocks2", sgemm_tiled<128, 128, 8, 8, 8, 2>, 128, 128, 256);
    run("BM128_BN128_BK16_TM8_TN8_minblocks2", sgemm_tiled<128, 128, 16, 8, 8, 2>, 128, 128, 256);
    printf("]}\n");
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s props|clock|ldsbw|banks|ldslat|sync|atomics|shfl|sgemm\n", argv[0]);
        return 1;
    }
    CK(cudaSetDevice(0));
    std::string m = argv[1];
    if (m == "props") mode_props();
    else if (m == "clock") mode_clock();
    else if (m == "ldsbw") mode_ldsbw();
    else if (m == "banks") mode_banks();
    else if (m == "ldslat") mode_ldslat();
    else if (m == "sync") mode_sync();
    else if (m == "atomics") mode_atomics();
    else if (m == "shfl") mode_shfl();
    else if (m == "sgemm") mode_sgemm();
    else {
        fprintf(stderr, "unknown mode %s\n", m.c_str());
        return 1;
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
