#include "io/state_csv.hpp"

#include <array>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/real.hpp"

namespace nbody {

namespace {

// Body rows `id,mass,x,y,z,vx,vy,vz`, each after `prefix`.
template <class T>
void append_body_rows(std::string& out, const State<T>& s, const std::string& prefix) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += prefix;
    out += std::to_string(i);
    for (T v : {s.mass[i], s.pos(0)[i], s.pos(1)[i], s.pos(2)[i], s.vel(0)[i], s.vel(1)[i], s.vel(2)[i]}) {
      out += ',';
      out += RealTraits<T>::format(v);
    }
    out += '\n';
  }
}

}  // namespace

template <class T>
std::string format_state_csv(const State<T>& s) {
  std::string out = std::string(kStateHeader) + "\n";
  append_body_rows(out, s, "");
  return out;
}

template <class T>
std::string format_snapshot_rows(const State<T>& s) {
  std::string out;
  append_body_rows(out, s, RealTraits<T>::format(s.t) + ",");
  return out;
}

namespace {

// The first byte of `line` that has no place in a state file (plain ASCII CSV), or npos.
std::size_t first_non_text(const std::string& line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if ((c < 0x20 && c != '\t') || c >= 0x7f) return i;
  }
  return std::string::npos;
}

// The fields between the commas: "a,b," has three, the last empty.
std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t pos = 0;
  for (std::size_t comma; (comma = line.find(',', pos)) != std::string::npos; pos = comma + 1)
    fields.push_back(line.substr(pos, comma - pos));
  fields.push_back(line.substr(pos));
  return fields;
}

}  // namespace

template <class T>
State<T> read_state_csv(const std::filesystem::path& path) {
  const std::string where = "state file '" + path.string() + "'";
  if (std::filesystem::is_directory(path)) throw InputError(where + " is a directory, not a file");
  std::ifstream in(path);
  if (!in)
    throw InputError("cannot open state file '" + path.string() + "'" + (std::filesystem::exists(path) ? " (permission?)" : " (no such file)"));
  std::string line;
  // Each line, without a final \r (files from Windows), refused when it holds what no state file does.
  auto next_line = [&](std::size_t lineno) {
    if (!std::getline(in, line)) return false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineno == 1 && line.starts_with("\xEF\xBB\xBF"))
      throw InputError(where + " starts with a UTF-8 byte-order mark; save it as plain text (the first line must be " +
                       kStateHeader + ")");
    if (const std::size_t at = first_non_text(line); at != std::string::npos)
      throw InputError(where + " line " + std::to_string(lineno) + " is not plain text (byte " + quoted_excerpt(line.substr(at, 1)) +
                       " at column " + std::to_string(at + 1) + "): a state file is a CSV of numbers");
    return true;
  };
  if (!next_line(1)) throw InputError(where + " is empty (expected header " + kStateHeader + ")");
  if (line != kStateHeader) throw InputError(where + ": header is " + quoted_excerpt(line) + ", expected '" + kStateHeader + "'");
  std::vector<std::array<T, 7>> rows;
  for (std::size_t lineno = 2; next_line(lineno); ++lineno) {
    if (line.empty()) continue;
    const std::string at = where + " line " + std::to_string(lineno);
    const std::vector<std::string> fields = split_fields(line);
    if (fields.size() != 8)
      throw InputError(at + ": expected 8 fields (" + kStateHeader + "), got " + std::to_string(fields.size()) +
                       (fields.size() == 9 && fields.back().empty() ? " (a comma at the end of the line)" : ""));
    if (fields[0] != std::to_string(rows.size()))
      throw InputError(at + ": id is " + quoted_excerpt(fields[0]) + ", expected " + std::to_string(rows.size()) + " (ids count from 0 in order)");
    std::array<T, 7> v;
    static const char* names[] = {"mass", "x", "y", "z", "vx", "vy", "vz"};
    for (int k = 0; k < 7; ++k) {
      v[k] = RealTraits<T>::parse(fields[k + 1], at + ": " + names[k]);
      if (!is_finite(v[k])) throw InputError(at + ": " + names[k] + " is " + quoted_excerpt(fields[k + 1]) + ", not a finite number");
    }
    if (!(v[0] > T(0))) throw InputError(at + ": mass must be positive, got " + quoted_excerpt(fields[1]));
    rows.push_back(v);
  }
  if (rows.empty()) throw InputError(where + " has no bodies");
  State<T> s(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s.mass[i] = rows[i][0];
    for (int d = 0; d < 3; ++d) s.pos(d)[i] = rows[i][1 + d], s.vel(d)[i] = rows[i][4 + d];
  }
  return s;
}

#define NBODY_INSTANTIATE(T)                                  \
  template std::string format_state_csv(const State<T>&);    \
  template std::string format_snapshot_rows(const State<T>&); \
  template State<T> read_state_csv<T>(const std::filesystem::path&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
