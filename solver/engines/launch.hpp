#pragma once
// GPU launch shapes: the text of --launch, and the knobs a GPU kernel's spec declares (which
// values it compiles or accepts, and what `nbody tune` tries). The specs of the CUDA kernels
// (engines/cuda/*.hpp), of the device-resident stepping kernel and of the OpenCL kernel are
// lists of these knobs; the registry hands them on as an engine's capabilities, so that
// --launch, `nbody tune`, `nbody list engines` and every launch-shape error read one owner.
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace nbody {

// A launch shape, one value per knob; 0 means "choose": the shape `nbody tune` cached for this
// device, precision and N, else the kernel's own choice for N and the device.
struct Launch {
  int block = 0;    // threads per block (work-items per group)
  int split = 0;    // the kernel's own meaning: j-range pieces, passes, threads per body
  int unroll = 0;   // unroll factor of the inner loop
  int ipt = 0;      // bodies per thread
  int cluster = 0;  // device-resident steps: blocks of one thread-block cluster (1: grid-wide sync)
  int l1 = 0;          // 1: prefer L1 cache over shared memory (0: the driver's split)
  int host_build = 0;  // tree engines, 1: the tree built on the host and copied (0: built on the device)
  bool operator==(const Launch&) const = default;
};

// "block=256,split=4" (any subset of block, split, unroll, ipt, cluster, l1, host_build, any order;
// "" = all chosen). Values are integers >= 1 (l1 and host_build: 0 or more, 0 being their default).
// Throws InputError naming the item and the valid keys.
Launch parse_launch(std::string_view text);
// Every field, "auto" for 0: "block=256,split=auto,unroll=4,ipt=2" (cluster, l1 and host_build
// only when set).
std::string to_string(const Launch& l);

// One knob of a kernel. Valid values: those listed (the compiled variants), else lo, lo + step,
// ... up to hi, where hi = 0 means up to the device's own limit (threads per block for block=,
// the grid's height for split=).
struct Knob {
  int Launch::*field;
  std::string_view key;      // as written in --launch
  std::string_view meaning;  // for --help, `nbody list engines` and errors
  std::vector<int> values;   // the compiled variants; empty: the range below
  int lo = 1, step = 1, hi = 0;
  static constexpr int unbounded = std::numeric_limits<int>::max();  // hi: any value from lo on
  std::vector<int> tune;     // what `nbody tune` tries unless told otherwise (0 = the kernel's choice)

  // A knob whose valid values are `values`; one whose valid values are lo, lo + step, ..., hi.
  static Knob list(int Launch::*field, std::string_view key, std::string_view meaning, std::vector<int> values,
                   std::vector<int> tune = {}) {
    return {field, key, meaning, std::move(values), 1, 1, 0, std::move(tune)};
  }
  static Knob range(int Launch::*field, std::string_view key, std::string_view meaning, int lo, int step, int hi,
                    std::vector<int> tune = {}) {
    return {field, key, meaning, {}, lo, step, hi, std::move(tune)};
  }

  bool accepts(int v, int device_limit) const;
  // "1, 2, 4, 8", "32, 64, ..., 256" or "1..1024" (the device's limit filled in; 0: not known).
  std::string valid_text(int device_limit) const;
};

// Only the knobs' fields, in their order, 0 left out: "block=256,ipt=2" (what `nbody tune` stores).
std::string to_string(const Launch& l, const std::vector<Knob>& knobs);
// The knob of every GPU kernel: threads per block (work-items per group), up to the device's limit.
Knob block_knob(std::vector<int> tune = {64, 128, 256, 512, 1024});

// Sets every field that is not one of the knobs to its neutral value: 1, and 0 for cluster= (the
// device-resident steps' knob), l1= and host_build=, so that a resolved shape names only what the kernel ran with.
void set_other_fields_neutral(const std::vector<Knob>& knobs, Launch& l);
// The knobs' keys: "block=, unroll=, ipt=".
std::string knob_keys(const std::vector<Knob>& knobs);

// Throws InputError("invalid launch shape for ENGINE (l): ENGINE takes only ...") when a field that
// is not one of the knobs is set above its least value (1; 0 for l1= and host_build=).
void check_keys(std::string_view engine, const std::vector<Knob>& knobs, const Launch& l);
// Checks a shape against a kernel's knobs and throws InputError("invalid launch shape for ENGINE
// (requested): why") for what the kernel cannot run: a field that is not one of its knobs set
// above its least value (as check_keys), or a value outside a knob's valid values (0, still
// to be chosen, passes). device_limit(knob) is the device's bound of a range with hi = 0; device
// names the device in the message.
void check_launch(std::string_view engine, const std::vector<Knob>& knobs, const Launch& requested, const Launch& l,
                  const std::function<int(const Knob&)>& device_limit, std::string_view device);
[[noreturn]] void invalid_launch(std::string_view engine, const Launch& requested, const std::string& why);

// The specs of a back end's kernels, in registry order (engines/cuda/kernels.hpp,
// engines/opencl/kernels.hpp): the registry makes one engine of each kernel for every real type
// it runs in. A spec is a struct with static members name, description, runs_in<T> and knobs<T>().
template <class... Kernel>
struct KernelList {
  static constexpr std::size_t size = sizeof...(Kernel);
  template <class F>
  static void for_each(F&& f) {
    (f.template operator()<Kernel>(), ...);
  }
  // The position of K in the list.
  template <class K>
  static constexpr std::size_t index_of() {
    std::size_t i = 0, found = size;
    ((std::is_same_v<K, Kernel> ? found = i : 0, ++i), ...);
    return found;
  }
};

// For a spec's runs_in<T>: T is one of Ts.
template <class T, class... Ts>
constexpr bool one_of = (std::is_same_v<T, Ts> || ...);

}  // namespace nbody
