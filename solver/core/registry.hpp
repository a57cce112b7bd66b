#pragma once
// Name -> factory tables for engines, integrators and initial conditions. Each table is a plain
// list of entries; looking a name up either finds it or throws an InputError that lists the valid
// names, which is the message every "unknown NAME" error of the CLI shows.
#include <string>
#include <string_view>

#include "core/error.hpp"

namespace nbody {

template <class Table>
std::string names_of(const Table& table) {
  std::string out;
  for (const auto& e : table) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

template <class Table>
const auto& find_entry(const Table& table, std::string_view name, std::string_view kind) {
  for (const auto& e : table)
    if (e.name == name) return e;
  throw InputError("unknown " + std::string(kind) + " '" + std::string(name) + "' (valid: " +
                   names_of(table) + ")");
}

}  // namespace nbody
