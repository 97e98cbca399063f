// vado HIP-on-CUDA, device layer "wave64", part 1 of 2: the exchange between the two CUDA warps of an emulated
// 64-lane wave (shared state, lane states, meetings of known groups, the pairing of half-groups at calls without a
// mask). vado.verify.hip_on_cuda puts it before hip_on_cuda_wave64.cuh (part 2: the HIP functions on it), whose header
// comment describes the emulation and its limits.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

namespace vado_w64 {

static __shared__ unsigned int xch[16][64];  // one 32-bit word per lane of each wave
// What each lane is doing that the other half may wait out, the tag's upper 24 bits | state: RUNNING (0), AT_BARRIER,
// EXITED, FORMING | 5 bits of the call site while its half-group is at a call without a mask (form()), or MEETING | key
// while its half-group waits at the meeting of a known mask (kmeet[key]). Written by the lane itself (VADO_W64_EXIT_GUARD marks it RUNNING as the kernel starts, so a word an earlier block left reads as
// RUNNING unless its tag matches in 24 bits and the lane has not started yet).
static __shared__ unsigned int lstate[16][64];
// Where the half-groups of a wave find each other at a call without a mask (form()): tag << 32 | slot of half 1 << 8 |
// slot of half 0, each a post count << 2 | EMPTY, POSTED (a half-group waits there for one of the other half at the
// same call site) or ANSWERED (one took it; the poster frees the slot once it has read post_mate).
static __shared__ unsigned long long mbox[16];
static __shared__ unsigned int post_act[16][2];         // the lanes of the half-group posted in each slot
static __shared__ unsigned int post_site[16][2];        // the call site it waits at (site_of())
static __shared__ unsigned long long post_mate[16][2];  // 1 << 32 | the lanes of the half-group that took it (0 until then)
// Meetings of a group spanning both halves, per wave and lowest lane of the group (always in the first half):
// tag << 32 | arrivals << 16 | departures, both halves counted (16-bit, compared modulo 2^16).
static __shared__ unsigned long long kmeet[16][32];

__device__ __forceinline__ unsigned int tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned int nthreads() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ unsigned int lane() { return tid() & 63u; }
__device__ __forceinline__ unsigned int wave() { return tid() >> 6; }
__device__ __forceinline__ unsigned int half() { return tid() & 32u; }
// Whether the caller's wave has its second CUDA warp (threads 64w+32 .. exist).
__device__ __forceinline__ bool paired() { return (tid() & ~63u) + 32u < nthreads(); }
__device__ __forceinline__ unsigned int warp_lane() { return tid() & 31u; }

static __device__ __noinline__ void fail(const char* what) {
  printf("vado wave64 emulation: %s (block %u,%u,%u thread %u of %u)\n", what, blockIdx.x, blockIdx.y, blockIdx.z,
         tid(), nthreads());
  __trap();
}

// A tag for this block of this grid (never 0): words written by an earlier block in the same shared memory carry
// another tag and read as their initial value.
__device__ __forceinline__ unsigned int tag() {
  unsigned long long g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  unsigned long long h = (g + 1ull) * 0x9E3779B97F4A7C15ull ^ (b + 1ull) * 0xC2B2AE3D27D4EB4Full;
  return (unsigned int)(h >> 32) | 1u;
}
__device__ __forceinline__ bool leader(unsigned int am) { return warp_lane() == (unsigned int)(__ffs(am) - 1); }
// A call site of the program: its line and file, given by the default argument VADO_W64_CALL_SITE of the HIP functions
// and cooperative-groups members (evaluated where the program calls them). 0: the emulation's own calls.
__device__ __forceinline__ unsigned int site_of(unsigned int line, const char* file) {
  return (line * 0x9E3779B1u ^ (unsigned int)(unsigned long long)file) | 1u;
}
#define VADO_W64_CALL_SITE vado_w64::site_of(__builtin_LINE(), __builtin_FILE())

// The lanes of half `h` of wave `w` that exist (a block whose size is not a multiple of 64 has fewer).
__device__ __forceinline__ unsigned int half_lanes(unsigned int w, unsigned int h) {
  unsigned int first = w * 64u + h * 32u, n = nthreads();
  return n <= first ? 0u : (n - first < 32u ? n - first : 32u);
}
__device__ __forceinline__ unsigned int present(unsigned int w, unsigned int h) {
  unsigned int n = half_lanes(w, h);
  return n >= 32u ? ~0u : (1u << n) - 1u;
}

// ---------------------------------------------------------------------------------------------
// Lane states

enum : unsigned int { RUNNING = 0u, AT_BARRIER = 1u, EXITED = 2u, FORMING = 0x40u, MEETING = 0x80u };
__device__ __forceinline__ void set_state(unsigned int s) {
  __threadfence_block();  // what the lane wrote before is seen before its new state
  *(volatile unsigned int*)&lstate[wave()][lane()] = (tag() & ~0xffu) | s;
  __threadfence_block();
}
__device__ __forceinline__ unsigned int state_of(unsigned int w, unsigned int l, unsigned int t) {
  unsigned int v = *(volatile unsigned int*)&lstate[w][l];
  return (v & ~0xffu) == (t & ~0xffu) ? v & 0xffu : RUNNING;
}

// The block barrier, as the __syncthreads() macros run it: each lane marks itself AT_BARRIER before the barrier and
// RUNNING after it, and a second barrier keeps any lane from reaching a wave-wide call before every lane is marked
// RUNNING again. A half whose lanes wait there while the other half makes a wave-wide call skipped that call (on
// AMD, its lanes are inactive at it).
__device__ __forceinline__ void enter_barrier() {
  if (paired()) set_state(AT_BARRIER);
}
__device__ __forceinline__ void leave_barrier() {
  if (paired()) set_state(RUNNING);
}
// VADO_W64_EXIT_GUARD: the lane starts RUNNING, and leaves the kernel (the destructor, at every return): once every
// lane of a half has left, the other half's wave-wide calls go on without it, as they do on AMD.
struct exit_guard {
  __device__ __forceinline__ exit_guard() {
    if (paired()) set_state(RUNNING);
  }
  __device__ __forceinline__ ~exit_guard() {
    if (paired()) set_state(EXITED);
  }
};

// ---------------------------------------------------------------------------------------------
// Meetings of a known group (a mask over both halves)

__device__ __forceinline__ unsigned int kfield(unsigned long long v, unsigned int t, int shift) {
  return (unsigned int)(v >> 32) == t ? (unsigned int)(v >> shift) & 0xffffu : 0u;
}
// Adds one to a field of a meeting's counter (16: arrivals, 0: departures); the new value of that field.
__device__ __forceinline__ unsigned int kbump(unsigned long long* c, int shift) {
  unsigned int t = tag();
  unsigned long long old = *(volatile unsigned long long*)c, assumed;
  unsigned int field;
  do {
    assumed = old;
    unsigned int a = kfield(assumed, t, 16), d = kfield(assumed, t, 0);
    if (shift == 16) a = (a + 1u) & 0xffffu; else d = (d + 1u) & 0xffffu;
    field = shift == 16 ? a : d;
    old = atomicCAS(c, assumed, ((unsigned long long)t << 32) | ((unsigned long long)a << 16) | d);
  } while (old != assumed);
  __threadfence_block();
  return field;
}
// Each half bumps a field once per call: the caller's bump made it 2s - 1 or 2s; both halves are there at 2s.
__device__ __forceinline__ void kmeet_both(unsigned long long* c, int shift) {
  unsigned int target = (kbump(c, shift) + 1u) & 0xfffeu, t = tag();
  while ((short)((kfield(*(volatile unsigned long long*)c, t, shift) - target) & 0xffffu) < 0) {
  }
  __threadfence_block();
}
__device__ __forceinline__ bool spans(unsigned long long m) { return (unsigned int)m != 0u && (m >> 32) != 0ull; }

// The lanes `m` meet (the caller is one of them), each having written `v` as its word: the lanes of the caller's
// half first (__syncwarp of them: CUDA may run them as separate groups after a branch), then the two halves at the
// counter of the lowest lane of `m`. Groups that call at once are disjoint (they partition the lanes that call), so
// their lowest lanes, and their counters, differ; a group's next call with the same lowest lane waits for both
// halves of this one to leave (done()). Returns the lanes of `m` that exist.
__device__ __forceinline__ unsigned long long meet(unsigned int v, unsigned long long m) {
  unsigned int w = wave();
  m &= (unsigned long long)present(w, 0) | ((unsigned long long)present(w, 1) << 32);
  unsigned int mine = (unsigned int)(m >> half());
  xch[w][lane()] = v;
  __threadfence_block();
  if (spans(m) && paired()) {
    unsigned int key = (unsigned int)__ffsll((long long)m) - 1u;
    set_state(MEETING | key);
    __syncwarp(mine);
    if (leader(mine)) kmeet_both(&kmeet[w][key], 16);
    __syncwarp(mine);
    set_state(RUNNING);
  } else {
    __syncwarp(mine);
  }
  return m;
}

// ---------------------------------------------------------------------------------------------
// Calls without a mask (HIP's EXEC)

enum : unsigned int { EMPTY = 0u, POSTED = 1u, ANSWERED = 2u };
// Slot `h` of the mailbox word (post count << 2 | state); all EMPTY in a word an earlier block left.
__device__ __forceinline__ unsigned int slot(unsigned long long box, unsigned int t, unsigned int h) {
  return (unsigned int)(box >> 32) == t ? (unsigned int)(box >> (8u * h)) & 0xffu : EMPTY;
}
__device__ __forceinline__ unsigned int state(unsigned int s) { return s & 3u; }
// The word with slot `h` in `to` (POSTED counts a post: a slot that was taken, freed and posted again differs).
__device__ __forceinline__ unsigned long long with_slot(unsigned long long box, unsigned int t, unsigned int h,
                                                        unsigned int to) {
  unsigned int mine = slot(box, t, h), other = slot(box, t, h ^ 1u);
  mine = to == POSTED ? ((mine + 4u) & 0xfcu) | POSTED : (mine & 0xfcu) | to;
  return ((unsigned long long)t << 32) | (h ? (mine << 8) | other : (other << 8) | mine);
}

__device__ __forceinline__ unsigned int site_bits(unsigned int site) { return (site * 0x9E3779B1u) >> 27; }
// Whether every lane of half `p` of wave `w` waits where it cannot make the caller's call (at `site`): at a block
// barrier the caller has not reached, gone from the kernel, at the meeting of a known group that still waits for a
// half, or at a call without a mask at another site (on AMD those lanes are on another path: inactive here). The
// half-group posted in the mailbox is compared by its whole site; a half-group waiting for its half's slot by 5 bits
// of it (one at another site whose bits match is waited for, as if it were at this one).
__device__ __forceinline__ bool parked(unsigned int w, unsigned int p, unsigned int site) {
  unsigned int t = tag(), n = half_lanes(w, p);
  unsigned int posted = 0u, elsewhere = 0u;
  if (state(slot(*(volatile unsigned long long*)&mbox[w], t, p)) == POSTED) {
    __threadfence_block();
    posted = *(volatile unsigned int*)&post_act[w][p];
    if (*(volatile unsigned int*)&post_site[w][p] != site) elsewhere = posted;
  }
  for (unsigned int l = 0; l < n; ++l) {
    if ((elsewhere >> l) & 1u) continue;
    unsigned int s = state_of(w, 32u * p + l, t);
    if (s == AT_BARRIER || s == EXITED) continue;
    if ((s & ~31u) == FORMING && !((posted >> l) & 1u) && (s & 31u) != site_bits(site)) continue;
    if ((s & MEETING) && (kfield(*(volatile unsigned long long*)&kmeet[w][s & 31u], t, 16) & 1u)) continue;
    return false;
  }
  return true;
}

// The wave's lanes at a call without a mask, made at `site`. The caller's half-group is the lanes `am` of its warp
// running the call together; its leader lane takes a half-group of the other half posted in the wave's mailbox at the
// same site, or posts its own and waits to be taken, or goes alone once every lane of the other half is parked().
// Each half-group pairs with at most one other and is identified by its own lanes, never by a count of the calls its
// half has made: when CUDA runs the lanes of one half as two groups (after a branch, independent thread scheduling),
// each meets a partner or goes alone, and the two never share a counter. Half-groups at different sites (the two
// branches of an if/else, each half in one) do not pair: on AMD they are different instructions, run one after the
// other; lanes at another site count as parked. A second half-group of the same half waits until its half's slot is
// free (taking a half-group of the other half at its own site meanwhile).
__device__ __forceinline__ unsigned long long form(unsigned int am, unsigned int site) {
  unsigned int w = wave(), h = half() >> 5, p = h ^ 1u;
  unsigned int other = 0u;
  set_state(FORMING | site_bits(site));
  __syncwarp(am);
  if (leader(am)) {
    unsigned int t = tag();
    unsigned long long* box = &mbox[w];
    bool posted = false;
    for (;;) {
      unsigned long long b = *(volatile unsigned long long*)box;
      __threadfence_block();  // a slot seen POSTED: its post_act and post_site are seen too
      if (!posted) {
        if (state(slot(b, t, p)) == POSTED && *(volatile unsigned int*)&post_site[w][p] == site) {  // take it
          if (atomicCAS(box, b, with_slot(b, t, p, ANSWERED)) != b) continue;
          __threadfence_block();
          other = *(volatile unsigned int*)&post_act[w][p];
          __threadfence_block();
          *(volatile unsigned long long*)&post_mate[w][p] = (1ull << 32) | am;
          __threadfence_block();
          break;
        }
        if (state(slot(b, t, h)) != EMPTY) continue;  // another half-group of this half is meeting: wait for the slot
        *(volatile unsigned int*)&post_act[w][h] = am;
        *(volatile unsigned int*)&post_site[w][h] = site;
        *(volatile unsigned long long*)&post_mate[w][h] = 0ull;
        __threadfence_block();
        if (atomicCAS(box, b, with_slot(b, t, h, POSTED)) == b) posted = true;
        continue;
      }
      unsigned long long mate = *(volatile unsigned long long*)&post_mate[w][h];
      if (mate >> 32) {  // taken: free the slot (the other half's slot may change meanwhile)
        __threadfence_block();
        other = (unsigned int)mate;
        for (unsigned long long cur = b;;) {
          unsigned long long old = atomicCAS(box, cur, with_slot(cur, t, h, EMPTY));
          if (old == cur) break;
          cur = old;
        }
        break;
      }
      if (state(slot(b, t, h)) == POSTED && parked(w, p, site) && atomicCAS(box, b, with_slot(b, t, h, EMPTY)) == b)
        break;  // alone
    }
    __threadfence_block();
  }
  __syncwarp(am);  // orders what the leader saw before its lanes' reads of the other half's words
  other = __shfl_sync(am, other, __ffs(am) - 1);
  set_state(RUNNING);
  return ((unsigned long long)am << (32u * h)) | ((unsigned long long)other << (32u * p));
}

// ---------------------------------------------------------------------------------------------
// The exchange: publish() writes the caller's 32-bit word and returns the lanes of the call (a group's mask, or
// AMD's EXEC for a call without one), read() takes lane `src`'s word (0 when that lane is not in the call), done(exec)
// ends the exchange before the words may be written again.

// A call whose mask names lanes of both halves but not the whole wave (a cooperative group's partition, a coalesced
// group, a _sync call) meets by its mask (meet()): the lanes of one half may call at once with different masks (the two
// sides of a binary_partition, every label of a labeled_partition). A named lane that never calls leaves the others
// waiting (a time-out, where ROCm traps). The whole wave's mask (~0: a tile<64>, a full-wave _sync call, CUDA's full
// mask written as 64 bits) is taken as HIP's EXEC: the lanes that arrive together (form()).
__device__ __forceinline__ bool keyed(unsigned long long m) {
  return m != ~0ull && spans(m) && ((m >> lane()) & 1ull) && paired();
}
__device__ __forceinline__ unsigned long long publish_active(unsigned int v, unsigned int am, unsigned int site) {
  xch[wave()][lane()] = v;
  __threadfence_block();
  __syncwarp(am);
  if (!paired()) return (unsigned long long)am;
  return form(am, site);
}
__device__ __forceinline__ unsigned long long publish(unsigned int v, unsigned long long group = 0ull,
                                                      unsigned int site = 0u) {
  if (keyed(group)) return meet(v, group);
  return publish_active(v, __activemask(), site);
}
__device__ __forceinline__ unsigned int read(unsigned int src, unsigned long long exec) {
  src &= 63u;
  if (!((exec >> src) & 1ull)) return 0u;
  return ((volatile unsigned int*)xch[wave()])[src];
}
__device__ __forceinline__ void done(unsigned long long exec) {
  unsigned int mine = (unsigned int)(exec >> half());
  __syncwarp(mine);
  if (spans(exec) && paired()) {
    if (leader(mine)) kmeet_both(&kmeet[wave()][__ffsll((long long)exec) - 1], 0);
    __syncwarp(mine);
  }
}

// Lane `src` (0..63) of the caller's own half, natively, among the lanes `am` of it; 0 when that lane is not there.
__device__ __forceinline__ unsigned int own32(unsigned int v, unsigned int src, unsigned int am) {
  unsigned int r = __shfl_sync(am, v, src & 31u);
  return ((am >> (src & 31u)) & 1u) ? r : 0u;
}
__device__ __forceinline__ unsigned int own32(unsigned int v, unsigned int src) { return own32(v, src, __activemask()); }
// The caller's half of a known group (its lanes that exist), or the lanes running with the caller when the group is not
// known, is the whole wave or does not hold the caller.
__device__ __forceinline__ unsigned int own_lanes(unsigned long long group) {
  if (group == ~0ull || !((group >> lane()) & 1ull)) return __activemask();  // the whole wave's mask: EXEC
  return (unsigned int)(group >> half()) & present(wave(), half() >> 5);
}

template <class T>
struct Words {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "vado wave64: cross-lane values are 1, 2, 4 or 8 bytes");
  unsigned int w[2];
  __device__ __forceinline__ explicit Words(const T& v) {
    w[0] = w[1] = 0u;
    memcpy(w, &v, sizeof(T));
  }
  __device__ __forceinline__ T value() const {
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  }
};

// The value of lane `index` (HIP's bpermute index; taken mod 64) of the wave; `local` when every lane's
// index lies in its own half (then no barrier is needed).
// `group`: the lanes of the call when its mask is known (a _sync form, a cooperative group; see keyed()).
// The second word of an 8-byte value is exchanged among the lanes of the first (meet(): a half-group never pairs
// with another one for it).
template <class T>
__device__ __forceinline__ T permute(T var, int index, bool local, unsigned long long group = 0ull,
                                     unsigned int site = 0u) {
  Words<T> in(var), out(var);
  unsigned int src = (unsigned int)index & 63u;
  if (local) {  // every lane reads a lane of its own half
    unsigned int am = own_lanes(group);
    out.w[0] = own32(in.w[0], src, am);
    if (sizeof(T) > 4) out.w[1] = own32(in.w[1], src, am);
    return out.value();
  }
  unsigned long long exec = publish(in.w[0], group, site);
  out.w[0] = read(src, exec);
  done(exec);
  if (sizeof(T) > 4) {
    exec = meet(in.w[1], exec);
    out.w[1] = read(src, exec);
    done(exec);
  }
  return out.value();
}

}  // namespace vado_w64
