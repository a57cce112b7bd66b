// GPU launch shapes (launch.hpp).
#include "engines/launch.hpp"

#include <algorithm>
#include <charconv>

#include "core/error.hpp"

namespace nbody {

namespace {

struct Field {
  int Launch::*field;
  std::string_view key;
  int least = 1;  // the least value --launch takes; a kernel without the knob accepts it too
};
constexpr Field kFields[] = {{&Launch::block, "block"},     {&Launch::split, "split"},
                             {&Launch::unroll, "unroll"},   {&Launch::ipt, "ipt"},
                             {&Launch::cluster, "cluster"}, {&Launch::l1, "l1", 0},
                             {&Launch::host_build, "host_build", 0}};

// "block, split, unroll, ipt, cluster, l1, host_build"
std::string all_keys() {
  std::string s;
  for (const Field& f : kFields) s += (s.empty() ? "" : ", ") + std::string(f.key);
  return s;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

Launch parse_launch(std::string_view text) {
  Launch l;
  std::vector<std::string_view> given;  // keys seen: a key given twice is a typo, not an override
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    const std::string_view val = eq == std::string_view::npos ? std::string_view{} : item.substr(eq + 1);
    int v = 0;
    const auto r = std::from_chars(val.data(), val.data() + val.size(), v);
    if (eq == std::string_view::npos || val.empty() || r.ec != std::errc() || r.ptr != val.data() + val.size())
      throw InputError("--launch: '" + std::string(item) + "' is not KEY=INTEGER (keys: " + all_keys() + ")");
    const auto f = std::find_if(std::begin(kFields), std::end(kFields), [&](const Field& x) { return x.key == key; });
    if (f == std::end(kFields))
      throw InputError("--launch: unknown key '" + std::string(key) + "' (valid: " + all_keys() + ")");
    if (v < f->least)
      throw InputError("--launch: " + std::string(key) + " must be at least " + std::to_string(f->least) + ", got " +
                       std::to_string(v));
    if (std::find(given.begin(), given.end(), key) != given.end())
      throw InputError("--launch: " + std::string(key) + "= is given twice (each key once: " + all_keys() + ")");
    given.push_back(key);
    l.*f->field = v;
  }
  return l;
}

std::string to_string(const Launch& l) {
  auto f = [](int v) { return v == 0 ? std::string("auto") : std::to_string(v); };
  return "block=" + f(l.block) + ",split=" + f(l.split) + ",unroll=" + f(l.unroll) + ",ipt=" + f(l.ipt) +
         (l.cluster ? ",cluster=" + f(l.cluster) : "") + (l.l1 ? ",l1=" + f(l.l1) : "") +
         (l.host_build ? ",host_build=" + f(l.host_build) : "");
}

std::string to_string(const Launch& l, const std::vector<Knob>& knobs) {
  std::string s;
  for (const Knob& k : knobs)
    if (l.*k.field != 0) s += (s.empty() ? "" : ",") + std::string(k.key) + "=" + std::to_string(l.*k.field);
  return s;
}

bool Knob::accepts(int v, int device_limit) const {
  if (!values.empty()) return std::find(values.begin(), values.end(), v) != values.end();
  const int top = hi ? hi : device_limit;
  return v >= lo && v <= top && (v - lo) % step == 0;
}

std::string Knob::valid_text(int device_limit) const {
  if (!values.empty()) return join(values);
  const int top = hi ? hi : device_limit;
  if (top == unbounded) return std::to_string(lo) + " or more";
  const std::string last = top ? std::to_string(top - (top - lo) % step) : "the device's limit";
  if (step == 1) return std::to_string(lo) + ".." + last;
  return std::to_string(lo) + ", " + std::to_string(lo + step) + ", ..., " + last;
}

Knob block_knob(std::vector<int> tune) {
  return Knob::range(&Launch::block, "block", "threads per block", 1, 1, 0, std::move(tune));
}

void set_other_fields_neutral(const std::vector<Knob>& knobs, Launch& l) {
  for (const Field& f : kFields)
    if (std::none_of(knobs.begin(), knobs.end(), [&](const Knob& k) { return k.field == f.field; }))
      l.*f.field = f.field == &Launch::cluster ? 0 : f.least;
}

std::string knob_keys(const std::vector<Knob>& knobs) {
  std::string s;
  for (const Knob& k : knobs) s += (s.empty() ? "" : ", ") + std::string(k.key) + "=";
  return s;
}

void invalid_launch(std::string_view engine, const Launch& requested, const std::string& why) {
  throw InputError("invalid launch shape for " + std::string(engine) + " (" + to_string(requested) + "): " + why);
}

void check_keys(std::string_view engine, const std::vector<Knob>& knobs, const Launch& l) {
  for (const Field& f : kFields) {
    const auto k = std::find_if(knobs.begin(), knobs.end(), [&](const Knob& x) { return x.field == f.field; });
    if (k == knobs.end() && l.*f.field > f.least)
      invalid_launch(engine, l,
                     std::string(engine) + " takes only " + knob_keys(knobs) + " (not " + std::string(f.key) +
                         "=; `nbody list engines` names each engine's knobs)");
  }
}

void check_launch(std::string_view engine, const std::vector<Knob>& knobs, const Launch& requested, const Launch& l,
                  const std::function<int(const Knob&)>& device_limit, std::string_view device) {
  check_keys(engine, knobs, requested);
  for (const Knob& k : knobs) {
    const int v = l.*k.field;
    if (v == 0) continue;
    const int limit = device_limit(k);
    if (k.accepts(v, limit)) continue;
    std::string why = std::string(k.key) + "=" + std::to_string(v);
    if (k.values.empty() && k.hi == 0 && v > limit)
      why += " exceeds the device's limit of " + std::to_string(limit) + " " + std::string(k.meaning);
    else
      why += " is not valid for " + std::string(engine);
    invalid_launch(engine, requested,
                   why + " (valid: " + k.valid_text(limit) + ")" + (device.empty() ? "" : " (device: " + std::string(device) + ")"));
  }
}

}  // namespace nbody
