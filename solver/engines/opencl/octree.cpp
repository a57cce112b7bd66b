// Host side of the OpenCL octree engine (opencl_octree.hpp): the host build, its arrays uploaded into
// buffers that only grow, the walk of kernels/opencl/octree.cl. Every OpenCL call is checked
// (device.hpp).
#if NBODY_WITH_OPENCL
#include "engines/opencl/opencl_octree.hpp"

#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

#include "core/error.hpp"
#include "engines/octree/tree.hpp"
#include "engines/opencl/device.hpp"

namespace nbody::opencl {

template <class T>
struct OctreeBackend<T>::Buffers {
  octree::Tree<T> tree;
  std::vector<T> h_body;                  // the bodies in key order, x, y, z, mass
  std::vector<cl_uint> h_terms, h_cells;  // per work-item
  cl::Buffer node, mass, quad, child, nchild, first, end, body, index, acc, terms, cells;
  std::size_t bodies = 0, nodes = 0;  // capacities

  // Room for n bodies and m nodes (quadrupoles: 6 per node).
  void grow(const cl::Context& c, std::size_t n, std::size_t m) {
    if (n > bodies) {
      body = cl::Buffer(c, CL_MEM_READ_ONLY, 4 * n * sizeof(T));
      index = cl::Buffer(c, CL_MEM_READ_ONLY, n * sizeof(cl_uint));
      acc = cl::Buffer(c, CL_MEM_WRITE_ONLY, 3 * n * sizeof(T));
      terms = cl::Buffer(c, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint));
      cells = cl::Buffer(c, CL_MEM_WRITE_ONLY, n * sizeof(cl_uint));
      bodies = n;
    }
    if (m > nodes) {
      m += m / 2;
      node = cl::Buffer(c, CL_MEM_READ_ONLY, 4 * m * sizeof(T));
      mass = cl::Buffer(c, CL_MEM_READ_ONLY, m * sizeof(T));
      quad = cl::Buffer(c, CL_MEM_READ_ONLY, 6 * m * sizeof(T));
      for (cl::Buffer* b : {&child, &nchild, &first, &end}) *b = cl::Buffer(c, CL_MEM_READ_ONLY, m * sizeof(cl_uint));
      nodes = m;
    }
  }
};

template <class T>
OctreeBackend<T>::OctreeBackend(std::string_view engine, std::string_view function, const char* source, std::vector<Knob> knobs)
    : HostTreeBackend<T>(engine, function, source, std::move(knobs)), buffers_(std::make_unique<Buffers>()) {}
template <class T>
OctreeBackend<T>::~OctreeBackend() = default;

template <class T>
void OctreeBackend<T>::compute(const T* pos, const T* mass, std::size_t n, const ForceLaw<T>& law, T* acc) {
  static_assert(sizeof(unsigned) == sizeof(cl_uint));
  KernelHost::State& s = *this->state_;
  Buffers& b = *buffers_;
  TreeProfile& last = this->last_;
  last = {};
  cl::Kernel* const kernel = s.begin(n, law.rmin2 > T(0));
  if (!kernel) return;
  cl::Kernel& k = *kernel;
  const std::size_t block = s.block(k, 128);
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  octree::Tree<T>& t = b.tree;
  octree::build_octree(pos, mass, n, law.tree, octree::leaf_size_or(law.tree, OctreeWalk::leaf_size), t);
  pack_bodies(t.bx, t.by, t.bz, t.bm, b.h_body);
  b.h_terms.resize(n), b.h_cells.resize(n);
  const bool quadrupole = !t.quad.empty();
  try {
    b.grow(s.session.context, n, t.child.size());
    cl::CommandQueue& q = s.session.queue;
    upload(q, b.node, t.node), upload(q, b.mass, t.mass), upload(q, b.body, b.h_body), upload(q, b.index, t.body);
    if (quadrupole) upload(q, b.quad, t.quad);
    upload(q, b.child, t.child), upload(q, b.nchild, t.nchild), upload(q, b.first, t.first), upload(q, b.end, t.end);
    q.finish();
    const auto t1 = clock::now();
    int a = 0;
    k.setArg(a++, b.node), k.setArg(a++, b.mass), k.setArg(a++, b.quad);
    k.setArg(a++, static_cast<cl_uint>(quadrupole));
    for (const cl::Buffer* d : {&b.child, &b.nchild, &b.first, &b.end, &b.body, &b.index}) k.setArg(a++, *d);
    k.setArg(a++, static_cast<cl_uint>(n));
    k.setArg(a++, law.eps2);
    k.setArg(a++, law.rmin2);
    k.setArg(a++, law.G);
    k.setArg(a++, b.acc), k.setArg(a++, b.terms), k.setArg(a++, b.cells);
    s.run(k, n, block);
    q.enqueueReadBuffer(b.acc, CL_TRUE, 0, 3 * n * sizeof(T), acc);
    q.enqueueReadBuffer(b.terms, CL_TRUE, 0, n * sizeof(cl_uint), b.h_terms.data());
    q.enqueueReadBuffer(b.cells, CL_TRUE, 0, n * sizeof(cl_uint), b.h_cells.data());
    unsigned long long terms = 0, cells = 0;
    for (std::size_t j = 0; j < n; ++j) terms += b.h_terms[j], cells += b.h_cells[j];
    last = TreeProfile::timed(std::chrono::duration<double>(t1 - t0).count(), s.last_s, double(terms) / double(n));
    last.cell_terms_per_body = double(cells) / double(n);
    last.shape = t.shape();
    last.root_mass = double(t.mass[0]);
  } catch (const cl::Error& e) {
    s.fail_run(e);
  }
}

template class OctreeBackend<float>;
template class OctreeBackend<double>;

}  // namespace nbody::opencl
#endif  // NBODY_WITH_OPENCL
