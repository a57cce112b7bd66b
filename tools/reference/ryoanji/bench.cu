// ryoanji_bench: one force evaluation of Ryoanji (its cornerstone octree build, upward pass and
// Bonsai-style walk with Cartesian quadrupoles), timed as `nbody bench` times its tree engines, on
// bodies that `nbody ic` wrote, and its error against direct summation in double in nbody's norm
// (docs/design.md: |a_i - a_i,ref| / (G sum_j |a_ij|)). Built by build.sh beside it against
// Ryoanji's own source; nothing of Ryoanji is copied here.
//
//   ryoanji_bench --bodies STATE.csv [--theta 0.6] [--ncrit 64] [--repeats 5] [--error-bodies 8192]
//                 [--precision float|double]
//
// Prints CSV: a header and one row (times in seconds, the median over --repeats warm evaluations
// after one untimed; build, upsweep and walk are each evaluation's own phases, CUDA events).
// Each evaluation starts from the bodies in their input order (Ryoanji sorts them in place) and
// zeroed accelerations (its walk adds to them), and computes no potentials, as `nbody bench`.
// Bodies without softening: Ryoanji's smoothing length h (its pairs' distances are taken at least
// h_i + h_j) is 1e-10 x the bodies' extent, closer than any two distinct bodies come, and large
// enough that h^2 is not zero in float: a body's term on itself is then zero, every other pair's
// unsoftened.
// Exit status: 0 done; 2 bad input (one line on stderr); 3 a CUDA error.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include "cstone/cuda/cuda_utils.cuh"
#include "cstone/focus/source_center_gpu.h"
#include "cstone/traversal/groups_gpu.h"
#include "ryoanji/interface/treebuilder.cuh"
#include "ryoanji/nbody/cartesian_qpole.hpp"
#include "ryoanji/nbody/traversal_gpu.h"
#include "ryoanji/nbody/types.h"
#include "ryoanji/nbody/upsweep_gpu.h"

namespace {

struct BadInput : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "ryoanji_bench: CUDA error in %s: %s\n", what, cudaGetErrorString(e));
    std::exit(3);
  }
}

struct Options {
  std::string bodies, precision = "float";
  double theta = 0.6;
  unsigned ncrit = 64;
  int repeats = 5;
  std::size_t error_bodies = 8192;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) throw BadInput("option " + a + " needs a value");
    std::string v = argv[++i];
    try {
      if (a == "--bodies") o.bodies = v;
      else if (a == "--theta") o.theta = std::stod(v);
      else if (a == "--ncrit") o.ncrit = unsigned(std::stoul(v));
      else if (a == "--repeats") o.repeats = std::stoi(v);
      else if (a == "--error-bodies") o.error_bodies = std::stoul(v);
      else if (a == "--precision") o.precision = v;
      else throw BadInput("unknown option " + a + " (valid: --bodies --theta --ncrit --repeats --error-bodies --precision)");
    } catch (const std::logic_error&) {
      throw BadInput("option " + a + ": '" + v + "' is not a number");
    }
  }
  if (o.bodies.empty()) throw BadInput("--bodies STATE.csv is required (a state CSV of `nbody ic`)");
  if (!(o.theta > 0 && o.theta < 2)) throw BadInput("--theta must lie in (0, 2)");
  if (o.ncrit < 1 || o.repeats < 1) throw BadInput("--ncrit and --repeats must be at least 1");
  if (o.precision != "float" && o.precision != "double") throw BadInput("--precision must be float or double");
  return o;
}

// A state CSV of `nbody ic`: id,mass,x,y,z,vx,vy,vz.
void read_bodies(const std::string& path, std::vector<double>& m, std::vector<double>& x, std::vector<double>& y,
                 std::vector<double>& z) {
  std::ifstream in(path);
  if (!in) throw BadInput("cannot read " + path);
  std::string line;
  if (!std::getline(in, line) || line.rfind("id,mass,x,y,z", 0) != 0)
    throw BadInput(path + " is not a state CSV of `nbody ic` (header id,mass,x,y,z,...)");
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream s(line);
    std::string f[5];
    for (auto& v : f)
      if (!std::getline(s, v, ',')) throw BadInput(path + ": a row with fewer than 5 columns");
    m.push_back(std::stod(f[1])), x.push_back(std::stod(f[2])), y.push_back(std::stod(f[3])), z.push_back(std::stod(f[4]));
  }
  if (m.size() < 2) throw BadInput(path + " holds fewer than 2 bodies");
  // TreeBuilder::update sorts the coordinates only: the masses must not depend on the order.
  if (std::any_of(m.begin(), m.end(), [&](double v) { return v != m[0]; }))
    throw BadInput(path + ": the bodies' masses differ, and Ryoanji's tree builder reorders positions only");
}

// Direct summation in double for every k-th body of the sorted set: the reference acceleration and
// the scale G sum_j |a_ij| of nbody's norm, without softening (j == i left out).
template <class T>
__global__ void direct_reference(const T* x, const T* y, const T* z, const T* m, int n, int stride, int count,
                                 double* ref, double* scale) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int i = k * stride;
  double xi = x[i], yi = y[i], zi = z[i], ax = 0, ay = 0, az = 0, s = 0;
  for (int j = 0; j < n; ++j) {
    if (j == i) continue;
    double dx = double(x[j]) - xi, dy = double(y[j]) - yi, dz = double(z[j]) - zi;
    double r2 = dx * dx + dy * dy + dz * dz, inv = 1.0 / sqrt(r2), f = double(m[j]) * inv * inv * inv;
    ax += f * dx, ay += f * dy, az += f * dz, s += f * sqrt(r2);
  }
  ref[3 * k] = ax, ref[3 * k + 1] = ay, ref[3 * k + 2] = az, scale[k] = s;
}

template <class T>
int bench(const Options& o) {
  using namespace ryoanji;
  using Multipole = CartesianQuadrupole<T>;
  std::vector<double> m, x, y, z;
  read_bodies(o.bodies, m, x, y, z);
  const std::size_t n = m.size();
  double lo = std::min({*std::min_element(x.begin(), x.end()), *std::min_element(y.begin(), y.end()),
                        *std::min_element(z.begin(), z.end())});
  double hi = std::max({*std::max_element(x.begin(), x.end()), *std::max_element(y.begin(), y.end()),
                        *std::max_element(z.begin(), z.end())});
  const cstone::Box<T> box(T(lo - 1e-6 * (hi - lo)), T(hi + 1e-6 * (hi - lo)));
  const T G = 1;
  thrust::host_vector<T> hx(x.begin(), x.end()), hy(y.begin(), y.end()), hz(z.begin(), z.end()), hm(m.begin(), m.end());
  const thrust::device_vector<T> x0 = hx, y0 = hy, z0 = hz;
  thrust::device_vector<T> dx = x0, dy = y0, dz = z0, dm = hm, dh(n, T(1e-10 * (hi - lo)));
  thrust::device_vector<T> ax(n), ay(n), az(n);

  ryoanji::TreeBuilder<uint64_t> builder(o.ncrit);
  thrust::device_vector<ryoanji::Vec4<T>> centers;
  thrust::device_vector<Multipole> multipoles;
  // The walk's target groups (runs of consecutive bodies in the sorted order) and its stack,
  // allocated once: the times are of warm evaluations (the tree builder allocates its own).
  cstone::GroupData<cstone::GpuTag> groups;
  cstone::computeFixedGroups(0, n, ryoanji::bhMaxTargetSize(), groups);
  thrust::device_vector<int> pool(ryoanji::stackSize(groups.numGroups));
  cudaEvent_t ev[4];
  for (auto& e : ev) check(cudaEventCreate(&e), "cudaEventCreate");
  std::vector<double> build_s, upsweep_s, walk_s, total_s;
  util::array<uint64_t, 5> stats{};
  for (int r = 0; r <= o.repeats; ++r) {
    thrust::copy(x0.begin(), x0.end(), dx.begin());
    thrust::copy(y0.begin(), y0.end(), dy.begin());
    thrust::copy(z0.begin(), z0.end(), dz.begin());
    for (auto* a : {&ax, &ay, &az}) thrust::fill(a->begin(), a->end(), T(0));  // the walk adds to them
    check(cudaDeviceSynchronize(), "restoring the input order");

    check(cudaEventRecord(ev[0]), "cudaEventRecord");
    const int sources = builder.update(rawPtr(dx), rawPtr(dy), rawPtr(dz), n, box);
    check(cudaEventRecord(ev[1]), "cudaEventRecord");

    centers.resize(sources), multipoles.resize(sources);
    const int leaves = builder.numLeafNodes(), levels = builder.maxTreeLevel();
    const cstone::TreeNodeIndex* levelRange = builder.levelRange();
    cstone::computeLeafSourceCenterGpu(rawPtr(dx), rawPtr(dy), rawPtr(dz), rawPtr(dm), builder.leafToInternal(),
                                       leaves, builder.layout(), rawPtr(centers));
    cstone::upsweepCentersGpu(cstone::maxTreeLevel<uint64_t>{}, levelRange, builder.childOffsets(), rawPtr(centers));
    ryoanji::computeLeafMultipoles(rawPtr(dx), rawPtr(dy), rawPtr(dz), rawPtr(dm), builder.leafToInternal(), leaves,
                                   builder.layout(), rawPtr(centers), rawPtr(multipoles));
    for (int level = levels - 1; level >= 1; --level)
      ryoanji::upsweepMultipoles(levelRange[level], levelRange[level + 1], builder.childOffsets(), rawPtr(centers),
                                 rawPtr(multipoles));
    cstone::setMacGpu(builder.nodeKeys(), sources, rawPtr(centers), T(1 / o.theta), box);
    check(cudaEventRecord(ev[2]), "cudaEventRecord");

    ryoanji::traverse(groups.view(), 1, rawPtr(dx), rawPtr(dy), rawPtr(dz), rawPtr(dm), rawPtr(dh), rawPtr(dx),
                      rawPtr(dy), rawPtr(dz), rawPtr(dm), rawPtr(dh), builder.childOffsets(), builder.internalToLeaf(),
                      builder.layout(), rawPtr(centers), rawPtr(multipoles), G, 0, {box.lx(), box.ly(), box.lz()},
                      static_cast<T*>(nullptr), rawPtr(ax), rawPtr(ay), rawPtr(az), rawPtr(pool));
    check(cudaEventRecord(ev[3]), "cudaEventRecord");
    check(cudaGetLastError(), "the evaluation's kernels");
    check(cudaEventSynchronize(ev[3]), "the evaluation");
    stats = ryoanji::readBhStats();
    if (r == 0) continue;  // the untimed first evaluation: allocations and the tree's first guess
    float ms[3];
    for (int k = 0; k < 3; ++k) check(cudaEventElapsedTime(&ms[k], ev[k], ev[k + 1]), "cudaEventElapsedTime");
    build_s.push_back(ms[0] * 1e-3), upsweep_s.push_back(ms[1] * 1e-3), walk_s.push_back(ms[2] * 1e-3);
    total_s.push_back((ms[0] + ms[1] + ms[2]) * 1e-3);
  }

  // The error of the last evaluation, on the sorted bodies it left (the norm is per body).
  const int count = int(std::min<std::size_t>(o.error_bodies == 0 ? n : o.error_bodies, n));
  const int stride = int(n / count);
  thrust::device_vector<double> ref(3 * count), scale(count);
  direct_reference<<<(count + 127) / 128, 128>>>(rawPtr(dx), rawPtr(dy), rawPtr(dz), rawPtr(dm), int(n), stride, count,
                                                  rawPtr(ref), rawPtr(scale));
  check(cudaGetLastError(), "direct_reference launch");
  check(cudaDeviceSynchronize(), "direct_reference");
  thrust::host_vector<double> href = ref, hscale = scale;
  thrust::host_vector<T> hax = ax, hay = ay, haz = az;
  std::vector<double> err(count);
  for (int k = 0; k < count; ++k) {
    const int i = k * stride;
    const double ex = double(hax[i]) - double(G) * href[3 * k], ey = double(hay[i]) - double(G) * href[3 * k + 1],
                 ez = double(haz[i]) - double(G) * href[3 * k + 2];
    err[k] = std::sqrt(ex * ex + ey * ey + ez * ez) / (double(G) * hscale[k]);
  }
  std::sort(err.begin(), err.end());
  auto rank = [&](double q) { return err[std::min<std::size_t>(count - 1, std::size_t(std::ceil(q * count)) - 1)]; };
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  };
  cudaDeviceProp prop{};
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  std::printf("n,precision,theta,ncrit,repeats,seconds_per_eval,seconds_per_eval_min,seconds_per_eval_max,build_seconds,"
              "moments_seconds,walk_seconds,p2p_per_body,m2p_per_body,error_median,error_p99,error_max,error_bodies,"
              "device\n");
  std::printf("%zu,%s,%g,%u,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%.4g,%.4g,%.4g,%.4g,%d,%s\n", n, o.precision.c_str(),
              o.theta, o.ncrit, o.repeats, median(total_s), *std::min_element(total_s.begin(), total_s.end()),
              *std::max_element(total_s.begin(), total_s.end()), median(build_s), median(upsweep_s), median(walk_s),
              double(stats[0]) / n, double(stats[2]) / n, median(err), rank(0.99), err.back(), count, prop.name);
  for (auto& e : ev) cudaEventDestroy(e);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    return o.precision == "float" ? bench<float>(o) : bench<double>(o);
  } catch (const BadInput& e) {
    std::fprintf(stderr, "ryoanji_bench: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ryoanji_bench: %s\n", e.what());
    return 3;
  }
}
