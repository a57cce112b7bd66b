#pragma once
// A byte archive for checkpoints: values are stored bit for bit (trivially copyable types) or as
// round-trip text (other real types, e.g. Boost.Multiprecision), so that a resumed run continues
// exactly where the interrupted one was. Readers check every read against the end of the data.
// Per-body arrays (put_bodies) hold every body, also where MPI ranks hold the bodies in blocks
// (BodyBlock): the writer gathers them on rank 0, a reader takes its block's, so that a run resumes
// on any number of ranks.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"
#include "core/state.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

class ArchiveWriter {
 public:
  // The block of the bodies this process holds where the ranks hold blocks: every rank then
  // writes, collectively, and rank 0's bytes hold every body.
  void set_bodies(const BodyBlock& bodies) { bodies_ = bodies; }
  template <class V>
  void put(const V& v) {
    if constexpr (std::is_trivially_copyable_v<V>) {
      bytes_.append(reinterpret_cast<const char*>(&v), sizeof v);
    } else {
      put_text(RealTraits<V>::format(v));
    }
  }
  template <class V>
  void put(const std::vector<V>& v) {
    put(static_cast<std::uint64_t>(v.size()));
    for (const V& x : v) put(x);
  }
  // `components` runs of the bodies' values one after another (as State::y); 0: none (empty).
  template <class V>
  void put_bodies(const std::vector<V>& v, std::size_t components) {
    if (bodies_.distributed && components > 0) return put(mpi::gather_bodies(v, components));
    put(v);
  }
  void put_text(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes_ += s;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
  BodyBlock bodies_;
};

class ArchiveReader {
 public:
  // `bodies`: the block this process takes of the per-body arrays; by default every body, as many
  // as the first per-body array read holds.
  explicit ArchiveReader(const std::string& bytes, BodyBlock bodies = {}) : bytes_(bytes), bodies_(bodies) {}
  template <class V>
  V get() {
    if constexpr (std::is_same_v<V, bool>) {  // a byte of 0 or 1: any other is no bool
      const auto b = get<std::uint8_t>();
      if (b > 1) throw InputError("checkpoint is corrupt (a flag is " + std::to_string(b) + ")");
      return b == 1;
    } else if constexpr (std::is_trivially_copyable_v<V>) {
      need(sizeof(V));
      V v{};
      std::memcpy(&v, bytes_.data() + pos_, sizeof v);
      pos_ += sizeof v;
      return v;
    } else {
      return RealTraits<V>::parse(get_text(), "checkpoint value");
    }
  }
  template <class V>
  void get(V& v) {
    v = get<V>();
  }
  template <class V>
  void get(std::vector<V>& v) {
    // Every element takes at least one byte (a text its length's 8): a length the rest cannot
    // hold is refused before anything is allocated.
    const auto n = get<std::uint64_t>();
    constexpr std::size_t least = std::is_trivially_copyable_v<V> ? sizeof(V) : sizeof(std::uint64_t);
    if (n > (bytes_.size() - pos_) / least) throw InputError("checkpoint is corrupt (vector length " + std::to_string(n) + ")");
    v.resize(n);
    for (V& x : v) x = get<V>();
  }
  // What put_bodies wrote: the block's part of every body's values (ranks holding blocks take
  // theirs from the archive's bytes, without a copy of the whole).
  template <class V>
  void get_bodies(std::vector<V>& v, std::size_t components) {
    if (!bodies_.distributed || components == 0) {
      get(v);
      if (components > 0 && bodies_.total == 0 && v.size() % components == 0) bodies_.count = bodies_.total = v.size() / components;
      return expect_bodies(v.size(), components);
    }
    if constexpr (std::is_trivially_copyable_v<V>) {
      const auto n = get<std::uint64_t>();
      expect_bodies(n, components);
      need(n * sizeof(V));
      v.resize(components * bodies_.count);
      for (std::size_t c = 0; c < components; ++c)
        std::memcpy(static_cast<void*>(v.data() + c * bodies_.count),
                    bytes_.data() + pos_ + (c * bodies_.total + bodies_.first) * sizeof(V), bodies_.count * sizeof(V));
      pos_ += n * sizeof(V);
    } else {
      throw std::logic_error("values that are not plain bytes are not spread over ranks");
    }
  }
  std::string get_text() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  const BodyBlock& bodies() const { return bodies_; }
  bool at_end() const { return pos_ == bytes_.size(); }
  // Refuses data after what was read.
  void finish() const {
    if (!at_end()) throw InputError("the checkpoint has trailing data");
  }

 private:
  void expect_bodies(std::uint64_t values, std::size_t components) const {
    if (values != components * bodies_.total)
      throw InputError("checkpoint is corrupt (an array of " + std::to_string(values) + " values for " +
                       std::to_string(bodies_.total) + " bodies, not " + std::to_string(components) + " a body)");
  }
  void need(std::size_t n) const {
    if (n > bytes_.size() - pos_) throw InputError("checkpoint is truncated");
  }
  std::string bytes_;
  std::size_t pos_ = 0;
  BodyBlock bodies_;
};

}  // namespace nbody
