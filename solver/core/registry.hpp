#pragma once
// Name -> factory tables for engines, integrators and initial conditions. Each table is a plain
// list of entries; looking a name up either finds it or throws an InputError that lists the valid
// names, which is the message every "unknown NAME" error of the CLI shows.
#include <ranges>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace nbody {

// "a, b, c": a list of names as the messages show valid choices.
template <class Range>
std::string comma_list(Range&& items) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : ", ") + std::string(x);
  return out;
}

// "a, b and c" (conjunction "and"), "a or b": a list of names in a sentence.
template <class Range>
std::string sentence_list(const Range& items, std::string_view conjunction) {
  const std::size_t n = std::ranges::size(items);
  std::string out;
  std::size_t k = 0;
  for (const auto& x : items) {
    if (k > 0 && k + 1 < n) out += ", ";
    else if (k > 0) (out += ' ').append(conjunction) += ' ';
    out += x;
    ++k;
  }
  return out;
}

// The names of a table's entries (those `keep` accepts), comma-separated.
template <class Table, class Keep>
std::string names_of(const Table& table, Keep keep) {
  std::string out;
  for (const auto& e : table)
    if (keep(e)) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}
template <class Table>
std::string names_of(const Table& table) {
  return names_of(table, [](const auto&) { return true; });
}

template <class Table>
const auto& find_entry(const Table& table, std::string_view name, std::string_view kind) {
  for (const auto& e : table)
    if (e.name == name) return e;
  throw InputError("unknown " + std::string(kind) + " '" + std::string(name) + "' (valid: " +
                   names_of(table) + ")");
}

}  // namespace nbody
