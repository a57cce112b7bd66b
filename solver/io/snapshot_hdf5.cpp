#include "io/snapshot_hdf5.hpp"

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"
#include "core/real.hpp"
#include "io/output_set.hpp"
#include "io/provenance.hpp"
#include "mpi/ranks.hpp"

namespace nbody {

namespace fs = std::filesystem;

bool is_hdf5_path(const fs::path& path) { return path.extension() == ".hdf5" || path.extension() == ".h5"; }

fs::path hdf5_snapshot_file(const fs::path& name, std::uint64_t index) {
  char number[24];
  std::snprintf(number, sizeof number, "_%03llu", static_cast<unsigned long long>(index));
  fs::path file = name;
  file.replace_filename(name.stem().string() + number + name.extension().string());
  return file;
}

fs::path xdmf_path_for(const fs::path& name) {
  fs::path xdmf = name;
  return xdmf.replace_extension(".xdmf");
}

bool is_hdf5_snapshot_file(const fs::path& name, const fs::path& file) {
  const std::string prefix = name.stem().string() + "_", stem = file.stem().string();
  return file.parent_path() == name.parent_path() && file.extension() == name.extension() && stem.starts_with(prefix) &&
         stem.size() >= prefix.size() + 3 && std::all_of(stem.begin() + prefix.size(), stem.end(), [](char c) { return c >= '0' && c <= '9'; });
}

namespace {

// An HDF5 identifier, closed when it goes out of scope.
class Id {
 public:
  Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Id() {
    if (id_ >= 0) close_(id_);
  }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }
  // Closes now, reporting whether that worked (a file's last writes happen here).
  bool close() {
    const herr_t rc = close_(id_);
    id_ = -1;
    return rc >= 0;
  }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// Before any other HDF5 call: no error stack printed (errors here are reported in one line
// instead), and no library shutdown at exit, where HDF5 1.10 crashes on a file whose writing
// failed (a full disk); every file is closed before then.
void start_hdf5() {
  static const bool started = H5dont_atexit() >= 0 && H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr) >= 0;
  (void)started;
}

// Doubles per value: a float or double is stored as itself; wider types as the shortest sum of
// doubles that holds all their significand bits.
template <class T>
constexpr int kTerms = std::is_same_v<T, float> ? 1 : (RealTraits<T>::digits + 52) / 53;

// x as kTerms<T> doubles whose sum, from the last term to the first in T, is x.
template <class T>
std::array<double, kTerms<T>> expansion(const T& x) {
  std::array<double, kTerms<T>> t{};
  if constexpr (std::is_same_v<T, dd>) {
    t = {x.hi, x.lo};
  } else if constexpr (std::is_same_v<T, qd>) {
    t = {x.x[0], x.x[1], x.x[2], x.x[3]};
  } else {
    T rest = x;  // each remainder is exact in T: the rounding error of a narrower format
    for (double& term : t) {
      term = static_cast<double>(rest);
      rest = rest - T(term);
    }
  }
  return t;
}

template <class T>
T sum_of_terms(const double* t, std::size_t k) {
  T sum = T(t[k - 1]);
  for (std::size_t j = k - 1; j-- > 0;) sum = sum + T(t[j]);
  return sum;
}

// Writes groups, attributes and datasets of one file; any HDF5 failure becomes a RunError naming
// it, and why: the system's reason (errno, cleared after each call that worked), else HDF5's step.
struct Writer {
  std::string file;

  hid_t made(hid_t id, const std::string& what) const {
    if (id < 0) fail("create " + what);
    errno = 0;
    return id;
  }
  void done(herr_t rc, const std::string& what) const {
    if (rc < 0) fail("write " + what);
    errno = 0;
  }
  [[noreturn]] void fail(const std::string& step) const {
    throw RunError("cannot write snapshot '" + file + "': " + (errno ? std::strerror(errno) : "HDF5 failed to " + step));
  }
  // count 0: a scalar.
  void attribute(hid_t at, const char* name, hid_t file_type, hid_t memory_type, const void* data, hsize_t count = 0) const {
    Id space(made(count ? H5Screate_simple(1, &count, nullptr) : H5Screate(H5S_SCALAR), name), H5Sclose);
    Id a(made(H5Acreate2(at, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT), name), H5Aclose);
    done(H5Awrite(a, memory_type, data), name);
  }
  void attribute(hid_t at, const char* name, double value) const {
    attribute(at, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
  }
  // Text as a fixed-length string (h5py reads it as bytes, as GADGET's own attributes).
  void text(hid_t at, const char* name, std::string value) const {
    if (value.empty()) value.push_back(' ');
    Id type(made(H5Tcopy(H5T_C_S1), name), H5Tclose);
    done(H5Tset_size(type, value.size()), name);
    done(H5Tset_strpad(type, H5T_STR_NULLPAD), name);
    attribute(at, name, type, type, value.data());
  }
  void dataset(hid_t group, const char* name, hid_t file_type, hid_t memory_type, const void* data,
               const std::vector<hsize_t>& dims) const {
    Id space(made(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), name), H5Sclose);
    Id d(made(H5Dcreate2(group, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), name), H5Dclose);
    done(H5Dwrite(d, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  }
};

template <class T>
void write_snapshot_file(const fs::path& path, const std::string& shown_name, const State<T>& s, const std::string& provenance) {
  start_hdf5();
  errno = 0;
  const Writer w{shown_name};
  const std::size_t n = s.size();
  if (n >= (std::size_t{1} << 32)) throw RunError("snapshot '" + shown_name + "': GADGET's header counts at most 2^32 - 1 bodies");
  Id file(w.made(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "the file"), H5Fclose);
  constexpr bool single = std::is_same_v<T, float>;
  constexpr std::size_t K = kTerms<T>;
  {
    Id header(w.made(H5Gcreate2(file, "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/Header"), H5Gclose);
    const std::array<std::uint32_t, 6> counts{0, static_cast<std::uint32_t>(n), 0, 0, 0, 0}, high{};
    const std::array<double, 6> mass_table{};
    w.attribute(header, "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, counts.data(), 6);
    w.attribute(header, "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, counts.data(), 6);
    w.attribute(header, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32, high.data(), 6);
    w.attribute(header, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, mass_table.data(), 6);
    w.attribute(header, "Time", static_cast<double>(s.t));
    w.attribute(header, "Redshift", 0.0);
    w.attribute(header, "BoxSize", 0.0);  // open boundaries (yt fits its domain to the bodies)
    const std::int32_t files = 1, double_precision = single ? 0 : 1;
    w.attribute(header, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT32, &files);
    w.attribute(header, "Omega0", 0.0);
    w.attribute(header, "OmegaLambda", 0.0);
    w.attribute(header, "HubbleParam", 1.0);
    w.attribute(header, "Flag_DoublePrecision", H5T_STD_I32LE, H5T_NATIVE_INT32, &double_precision);
    w.text(header, "Precision", std::string(RealTraits<T>::name));
    w.text(header, "Provenance", provenance);
    if constexpr (K > 1) {
      const auto t = expansion(s.t);
      w.attribute(header, "TimeExpansion", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, t.data(), K);
    }
  }
  Id group(w.made(H5Gcreate2(file, "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "/PartType1"), H5Gclose);
  std::vector<std::uint64_t> ids(n);
  for (std::size_t i = 0; i < n; ++i) ids[i] = i;
  w.dataset(group, "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(), {n});
  if constexpr (single) {
    std::vector<float> v(3 * n);
    for (const auto& [name, column] : {std::pair{"Coordinates", 0}, {"Velocities", 3}}) {
      for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) v[3 * i + d] = s.y[(column + d) * n + i];
      w.dataset(group, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v.data(), {n, 3});
    }
    w.dataset(group, "Masses", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, s.mass.data(), {n});
  } else {
    // Each value's terms, then the first term alone for the standard dataset.
    std::vector<double> terms(3 * n * K), first(3 * n);
    auto put = [&](const T& x, std::size_t at) {
      const auto t = expansion(x);
      if (is_finite(x) && !(sum_of_terms<T>(t.data(), K) == x))
        throw RunError("snapshot '" + shown_name + "': the value " + RealTraits<T>::format(x) +
                       " is beyond the exponent range of a sum of doubles and cannot be stored exactly");
      std::copy(t.begin(), t.end(), terms.begin() + at * K);
      first[at] = t[0];
    };
    for (const auto& [name, column] : {std::pair{"Coordinates", 0}, {"Velocities", 3}}) {
      for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < 3; ++d) put(s.y[(column + d) * n + i], 3 * i + d);
      w.dataset(group, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, first.data(), {n, 3});
      if constexpr (K > 1)
        w.dataset(group, (std::string(name) + "Expansion").c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, terms.data(), {n, 3, K});
    }
    for (std::size_t i = 0; i < n; ++i) put(s.mass[i], i);
    w.dataset(group, "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, first.data(), {n});
    if constexpr (K > 1) w.dataset(group, "MassesExpansion", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, terms.data(), {n, K});
  }
  if (!group.close() || !file.close()) w.fail("close it");
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

Hdf5Snapshots::Hdf5Snapshots(OutputSet& outputs, fs::path name, const nlohmann::json& parameters, std::uint64_t first_index)
    : outputs_(outputs), name_(std::move(name)), record_(provenance_record(parameters)), first_index_(first_index) {}

template <class T>
void write_hdf5_snapshot(OutputSet& outputs, const fs::path& path, const State<T>& s, const nlohmann::json& parameters) {
  if (!mpi::writes_files()) return;  // an MPI rank other than 0
  write_snapshot_file(outputs.stage(path), path.string(), s, provenance_record(parameters).dump());
}

template <class T>
void Hdf5Snapshots::write(const State<T>& s) {
  if (!mpi::writes_files()) return;  // an MPI rank other than 0: rank 0 writes the files
  const fs::path file = hdf5_snapshot_file(name_, next_index());
  const fs::path staged = outputs_.stage(file);
  files_.push_back({file, static_cast<double>(s.t)});
  n_ = s.size();
  single_ = std::is_same_v<T, float>;
  record_["written_utc"] = utc_timestamp();
  write_snapshot_file(staged, file.string(), s, record_.dump());
}

void Hdf5Snapshots::finish() {
  if (!mpi::writes_files()) return;
  // The sidecar: file names relative to it (it lies beside them). A vertex cell per body, its
  // connectivity the ids 0..N-1, so that ParaView draws the points (without cells it shows none).
  const std::string n = std::to_string(n_), precision = single_ ? "4" : "8";
  auto item = [&](const std::string& file, const char* dataset, const std::string& dims, const char* type, const std::string& bytes) {
    return "<DataItem Dimensions=\"" + dims + "\" NumberType=\"" + type + "\" Precision=\"" + bytes + "\" Format=\"HDF\">" +
           xml_escaped(file) + ":/PartType1/" + dataset + "</DataItem>";
  };
  std::string xml =
      "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n    <Grid Name=\"" + xml_escaped(name_.stem().string()) +
      "\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const File& f : files_) {
    const std::string file = f.name.filename().string();
    char time[32];
    std::snprintf(time, sizeof time, "%.17g", f.time);
    xml += "      <Grid Name=\"" + xml_escaped(f.name.stem().string()) + "\" GridType=\"Uniform\">\n        <Time Value=\"" +
           time + "\"/>\n        <Topology TopologyType=\"Polyvertex\" NumberOfElements=\"" + n +
           "\" NodesPerElement=\"1\">\n          " + item(file, "ParticleIDs", n, "UInt", "8") +
           "\n        </Topology>\n        <Geometry GeometryType=\"XYZ\">\n          " +
           item(file, "Coordinates", n + " 3", "Float", precision) + "\n        </Geometry>\n";
    for (const auto& [name, type, dims, bytes] :
         {std::tuple{"Velocities", "Vector", n + " 3", precision}, {"Masses", "Scalar", n, precision}})
      xml += std::string("        <Attribute Name=\"") + name + "\" AttributeType=\"" + type + "\" Center=\"Node\">\n          " +
             item(file, name, dims, "Float", bytes) + "\n        </Attribute>\n";
    xml += "        <Attribute Name=\"ParticleIDs\" AttributeType=\"Scalar\" Center=\"Node\">\n          " +
           item(file, "ParticleIDs", n, "UInt", "8") + "\n        </Attribute>\n      </Grid>\n";
  }
  xml += "    </Grid>\n  </Domain>\n</Xdmf>\n";
  outputs_.stream(xdmf_path_for(name_)) << xml;
}

namespace {

// The most values of 8 bytes a reader allocates for one dataset or attribute: the machine's
// memory, so that a length in a corrupt or foreign file is refused before anything is allocated.
std::size_t most_values() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) / 8 * static_cast<std::size_t>(page)
                               : std::size_t(1) << 32;
}

// Reads what write_snapshot_file wrote, or a file of the same layout from another tool; every
// shape, class and size is checked against the bodies' count and the file before a value is
// read. Any failure is an InputError naming the file and the object.
struct Reader {
  std::string where;
  hid_t file;

  [[noreturn]] void fail(const std::string& why) const { throw InputError(where + ": " + why); }
  bool has(const char* path) const {
    // Each level of the path in turn: H5Lexists fails on a missing intermediate group.
    const std::string p = path;
    for (std::size_t slash = p.find('/'); slash != std::string::npos; slash = p.find('/', slash + 1))
      if (H5Lexists(file, p.substr(0, slash).c_str(), H5P_DEFAULT) <= 0) return false;
    return H5Lexists(file, path, H5P_DEFAULT) > 0;
  }
  // The dataset at `path`, open, its shape checked against `dims` (any length where a dims entry
  // is 0), its values numbers (integers where `integers`) and, when stored contiguously, all of
  // them in the file. Returns the shape.
  std::vector<hsize_t> shape_of(const Id& d, const char* path, std::vector<hsize_t> dims, bool integers) const {
    if (!d.ok()) fail(std::string("cannot open ") + path);
    Id space(H5Dget_space(d), H5Sclose), type(H5Dget_type(d), H5Tclose);
    if (!space.ok() || !type.ok()) fail(std::string("cannot read the shape of ") + path);
    const H5T_class_t cls = H5Tget_class(type);
    if (integers ? cls != H5T_INTEGER : cls != H5T_FLOAT && cls != H5T_INTEGER)
      fail(std::string(path) + " does not hold " + (integers ? "integers" : "numbers"));
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> have(dims.size());
    if (rank != static_cast<int>(dims.size()) || H5Sget_simple_extent_dims(space, have.data(), nullptr) != rank)
      fail(std::string(path) + " has " + std::to_string(rank) + " dimensions, expected " + std::to_string(dims.size()));
    std::size_t count = 1;
    for (std::size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != 0 && have[i] != dims[i])
        fail(std::string(path) + " has " + std::to_string(have[i]) + " entries along dimension " + std::to_string(i + 1) +
             ", expected " + std::to_string(dims[i]));
      if (have[i] != 0 && count > most_values() / have[i])
        fail(std::string(path) + " is larger than this machine's memory");
      count *= have[i];
    }
    Id plist(H5Dget_create_plist(d), H5Pclose);
    const std::size_t bytes = H5Tget_size(type);
    if (plist.ok() && H5Pget_layout(plist) == H5D_CONTIGUOUS && bytes > 0 && count > 0 &&
        H5Dget_storage_size(d) < count * bytes)
      fail(std::string(path) + " holds fewer values than its shape (truncated?)");
    return have;
  }
  template <class V>
  std::vector<V> read(const Id& d, const char* path, std::size_t count) const {
    std::vector<V> v(count);
    const hid_t memory = std::is_same_v<V, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT64;
    if (count && H5Dread(d, memory, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
      fail(std::string("cannot read ") + path + " (truncated?)");
    return v;
  }
  // A dataset of `dims` values of V (converted from whatever the file holds).
  template <class V = double>
  std::vector<V> values(const char* path, const std::vector<hsize_t>& dims) const {
    if (!has(path)) fail(std::string("no dataset ") + path + " (not a snapshot of nbody's GADGET layout)");
    Id d(H5Dopen2(file, path, H5P_DEFAULT), H5Dclose);
    std::size_t count = 1;
    for (hsize_t x : shape_of(d, path, dims, std::is_integral_v<V>)) count *= x;
    return read<V>(d, path, count);
  }
  // The length of a one-dimensional dataset of numbers.
  hsize_t rows(const char* path) const {
    if (!has(path)) fail(std::string("no dataset ") + path + " (not a snapshot of nbody's GADGET layout)");
    Id d(H5Dopen2(file, path, H5P_DEFAULT), H5Dclose);
    return shape_of(d, path, {0}, false)[0];
  }
  // A Header attribute of at most `most` numbers.
  std::vector<double> header(const char* name, std::size_t most = 64) const {
    Id a(H5Aopen_by_name(file, "Header", name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (!a.ok()) fail(std::string("no Header attribute ") + name);
    Id space(H5Aget_space(a), H5Sclose), type(H5Aget_type(a), H5Tclose);
    const hssize_t count = space.ok() ? H5Sget_simple_extent_npoints(space) : -1;
    const H5T_class_t cls = type.ok() ? H5Tget_class(type) : H5T_NO_CLASS;
    if (count < 1 || static_cast<std::size_t>(count) > most || (cls != H5T_FLOAT && cls != H5T_INTEGER))
      fail(std::string("Header attribute ") + name + " is not 1 to " + std::to_string(most) + " numbers");
    std::vector<double> v(static_cast<std::size_t>(count));
    if (H5Aread(a, H5T_NATIVE_DOUBLE, v.data()) < 0) fail(std::string("cannot read Header attribute ") + name);
    return v;
  }
};

template <class T>
State<T> read_snapshot(const fs::path& path, const std::string& where) {
  if (H5Fis_hdf5(path.c_str()) <= 0) throw InputError(where + " is not an HDF5 file (or is truncated)");
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw InputError(where + " cannot be opened as HDF5 (truncated?)");
  const Reader r{where, file};
  if (!r.has("Header")) r.fail("no /Header group (not a GADGET-style snapshot)");
  const hsize_t n = r.rows("PartType1/Masses");
  if (n == 0) r.fail("holds no bodies");
  // A value from its standard dataset, or exactly from its expansion when the file has one.
  auto values = [&](const std::string& name, std::vector<hsize_t> dims) {
    std::vector<T> out;
    const std::string expansion = "PartType1/" + name + "Expansion";
    if constexpr (kTerms<T> > 1) {
      if (r.has(expansion.c_str())) {
        Id d(H5Dopen2(file, expansion.c_str(), H5P_DEFAULT), H5Dclose);
        dims.push_back(0);
        const hsize_t k = r.shape_of(d, expansion.c_str(), dims, false).back();
        if (k < 1 || k > 64)  // a value of any width: its terms summed from the smallest
          r.fail(expansion + " has " + std::to_string(k) + " terms per value, expected 1 to 64");
        dims.back() = k;
        const std::vector<double> terms = r.values(expansion.c_str(), dims);
        for (std::size_t i = 0; i < terms.size(); i += k) out.push_back(sum_of_terms<T>(terms.data() + i, k));
        return out;
      }
    }
    for (double x : r.values(("PartType1/" + name).c_str(), dims)) out.push_back(T(x));
    return out;
  };
  const std::vector<T> mass = values("Masses", {n}), pos = values("Coordinates", {n, 3}), vel = values("Velocities", {n, 3});
  {
    const std::vector<std::uint64_t> ids = r.values<std::uint64_t>("PartType1/ParticleIDs", {n});
    for (std::size_t i = 0; i < n; ++i)
      if (ids[i] != i) r.fail("ParticleIDs[" + std::to_string(i) + "] is " + std::to_string(ids[i]) + ", expected " + std::to_string(i) + " (ids count from 0 in order)");
  }
  State<T> s(n);
  for (std::size_t i = 0; i < n; ++i) {
    s.mass[i] = mass[i];
    if (!is_finite(mass[i]) || !(mass[i] > T(0))) r.fail("the mass of body " + std::to_string(i) + " is not a positive number");
    for (int d = 0; d < 3; ++d) {
      s.pos(d)[i] = pos[3 * i + d];
      s.vel(d)[i] = vel[3 * i + d];
      if (!is_finite(s.pos(d)[i]) || !is_finite(s.vel(d)[i])) r.fail("body " + std::to_string(i) + " has a non-finite coordinate");
    }
  }
  if constexpr (kTerms<T> > 1) {
    Id a(H5Aopen_by_name(file, "Header", "TimeExpansion", H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    if (a.ok()) {
      const std::vector<double> t = r.header("TimeExpansion");
      s.t = sum_of_terms<T>(t.data(), t.size());
      return s;
    }
  }
  s.t = T(r.header("Time").at(0));
  return s;
}

#if !H5_VERSION_GE(1, 14, 1)
// A sanitizer's hooks, where the process has one (null otherwise).
extern "C" {
void __sanitizer_set_report_fd(void* fd) __attribute__((weak));
void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));
}

// HDF5 before 1.14.1 reads past its buffers while decoding some damaged object header messages
// (CVE-2025-2310 and its kin), which nbody cannot check before the library decodes them: a crash
// inside the library. So a child process reads the file first, exactly as below; a child that
// dies means a file the library cannot read safely. Its death is the answer, so it is quiet, and
// no crash handler of this process (a fuzzer's, a sanitizer's) runs in it.
template <class T>
void check_the_library_survives(const fs::path& path, const std::string& where) {
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return;  // no child to spare: read as a newer library would
  if (child == 0) {
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    setenv("LIBC_FATAL_STDERR_", "1", 1);  // glibc's fatal messages to stderr, not the terminal
    const int quiet = open("/dev/null", O_WRONLY);
    dup2(quiet, STDOUT_FILENO), dup2(quiet, STDERR_FILENO);
    if (__sanitizer_set_report_fd) __sanitizer_set_report_fd(reinterpret_cast<void*>(static_cast<std::intptr_t>(quiet)));
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(nullptr);
    try {
      read_snapshot<T>(path, where);
    } catch (...) {
    }
    _exit(0);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) return;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw InputError(where + " is damaged: HDF5 " H5_VERSION " cannot decode it safely (its decoders check their bounds from 1.14.1 on)");
}
#endif

}  // namespace

template <class T>
State<T> read_hdf5_snapshot(const fs::path& path) {
  start_hdf5();
  const std::string where = "snapshot '" + path.string() + "'";
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError("cannot open " + where + " (no such file)");
  if (fs::is_directory(path, ec)) throw InputError(where + " is a directory, not a file");
#if !H5_VERSION_GE(1, 14, 1)
  check_the_library_survives<T>(path, where);
#endif
  return read_snapshot<T>(path, where);
}

#define NBODY_INSTANTIATE(T)                                     \
  template void Hdf5Snapshots::write<T>(const State<T>&);        \
  template void write_hdf5_snapshot<T>(OutputSet&, const fs::path&, const State<T>&, const nlohmann::json&); \
  template State<T> read_hdf5_snapshot<T>(const fs::path&);
NBODY_FOR_EACH_PRECISION(NBODY_INSTANTIATE)

}  // namespace nbody
