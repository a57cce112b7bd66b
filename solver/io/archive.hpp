#pragma once
// A byte archive for checkpoints: values are stored bit for bit (trivially copyable types) or as
// round-trip text (other real types, e.g. Boost.Multiprecision), so that a resumed run continues
// exactly where the interrupted one was. Readers check every read against the end of the data.
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"

namespace nbody {

class ArchiveWriter {
 public:
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
  void put_text(const std::string& s) {
    put(static_cast<std::uint64_t>(s.size()));
    bytes_ += s;
  }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class ArchiveReader {
 public:
  explicit ArchiveReader(const std::string& bytes) : bytes_(bytes) {}
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
  std::string get_text() {
    const auto n = get<std::uint64_t>();
    need(n);
    std::string s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool at_end() const { return pos_ == bytes_.size(); }
  // Refuses data after what was read.
  void finish() const {
    if (!at_end()) throw InputError("the checkpoint has trailing data");
  }

 private:
  void need(std::size_t n) const {
    if (n > bytes_.size() - pos_) throw InputError("checkpoint is truncated");
  }
  std::string bytes_;
  std::size_t pos_ = 0;
};

}  // namespace nbody
