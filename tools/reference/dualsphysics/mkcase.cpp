// mkcase: writes the input of DualSPHysics's own 2-D dam-break validation case, CaseDambreakVal2D
// (CASE.xml and CASE.bi4), in place of GenCase, which is distributed only as a binary, so that
// DualSPHysics built from its source can run the case as shipped (build.sh; the run:
// experiments/dualsphysics_dam_break.py). It is built against DualSPHysics's own classes for the
// case's constants, particle blocks and initial particle file, and writes what
// CaseDambreakVal2D_Def.xml defines:
//   fluid: the box x 0..1 m, z 0..2 m ("solid") on the lattice of spacing DP from (0, 0, 0),
//     less the points on the boundary, densities hydrostatic in the column (rhopgradient 2);
//   boundary: the faces bottom|left|right of the box x 0..4 m, z 0..3 m (one layer), density rho0;
//   constants as GenCase derives them: h = coefh sqrt(2 dp^2) with coefh 1, the speed of sound
//     coefsound sqrt(g hswl) with coefsound 20 and hswl the column's height, b = c0^2 rho0 / gamma,
//     masses rho0 dp^2.
// The Def file's <execution> (parameters, gauges) is kept as it is.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "JAppInfo.h"
#include "JCaseCtes.h"
#include "JCaseParts.h"
#include "JPartDataBi4.h"
#include "JXml.h"

JAppInfo AppInfo("mkcase", "v1", "27-11-2026");  // the application's identity, which DualSPHysics's classes read

int main(int argc, char** argv) {
  if (argc != 4) { std::fprintf(stderr, "usage: mkcase CaseDambreakVal2D_Def.xml DP OUTDIR/CASE\n"); return 2; }
  const std::string def = argv[1], out = argv[3];
  const double dp = std::atof(argv[2]);
  if (!(dp > 0 && dp <= 0.1) || std::fabs(std::lround(1 / dp) * dp - 1) > 1e-9) {
    std::fprintf(stderr, "mkcase: DP must divide 1 m, at most 0.1 m (0.02, 0.01, 0.005), got %s\n", argv[2]);
    return 2;
  }
  const double g = 9.81, rho0 = 1000, gamma = 7, coefsound = 20, cfl = 0.2, H = 2.0;
  const double c0 = coefsound * std::sqrt(g * H);  // speedsystem auto: sqrt(g hswl), hswl = H
  const double b = c0 * c0 * rho0 / gamma;
  const double h = 1.0 * std::sqrt(2 * dp * dp);   // coefh 1, 2-D
  const double mass = rho0 * dp * dp;
  const int nx = int(std::lround(4 / dp)), nzb = int(std::lround(3 / dp));
  const int nxf = int(std::lround(1 / dp)), nzf = int(std::lround(2 / dp));
  std::vector<tdouble3> pos; std::vector<float> rho; std::vector<tfloat3> vel;
  for (int i = 0; i <= nx; ++i) for (int k = 0; k <= nzb; ++k)       // boundary: bottom, left, right
    if (k == 0 || i == 0 || i == nx) { pos.push_back(TDouble3(i * dp, 0, k * dp)); rho.push_back(float(rho0)); }
  const unsigned nb = unsigned(pos.size());
  for (int i = 1; i <= nxf; ++i) for (int k = 1; k <= nzf; ++k) {     // fluid: points not on the boundary
    const double z = k * dp;
    pos.push_back(TDouble3(i * dp, 0, z));
    rho.push_back(float(rho0 * std::pow(1 + rho0 * g * (H - z) / b, 1 / gamma)));
  }
  const unsigned np = unsigned(pos.size()), nf = np - nb;
  vel.assign(np, TFloat3(0));
  std::vector<unsigned> idp(np); for (unsigned p = 0; p < np; ++p) idp[p] = p;
  tdouble3 pmin = pos[0], pmax = pos[0];
  for (auto& q : pos) { pmin = MinValues(pmin, q); pmax = MaxValues(pmax, q); }

  JXml xml; xml.LoadFile(def);
  JCaseCtes ctes;
  ctes.SetData2D(true, 0); ctes.SetGravity(TDouble3(0, 0, -g)); ctes.SetCFLnumber(cfl);
  ctes.SetGamma(gamma); ctes.SetRhop0(rho0); ctes.SetDp(dp); ctes.SetH(h); ctes.SetB(b);
  ctes.SetMassBound(mass); ctes.SetMassFluid(mass);
  ctes.SaveXmlRun(&xml, "case.execution.constants");
  JCaseParts parts;
  parts.AddFixed(0, nb); parts.AddFluid(0, nf);
  parts.SetMkFirst(11, 1);
  parts.SetPosDomain(pmin, pmax);
  parts.SaveXml(&xml, "case.execution.particles");
  xml.SaveFile(out + ".xml");

  const std::string dir = out.substr(0, out.find_last_of('/') + 1), name = out.substr(out.find_last_of('/') + 1);
  JPartDataBi4 pd;
  pd.ConfigBasic(0, 1, "", "mkcase", name, true, 0, dir);
  pd.ConfigParticles(np, nb, 0, 0, nf, pmin, pmax);
  pd.ConfigCtes(dp, h, b, rho0, gamma, mass, mass);
  pd.AddPartInfo(0, 0, np, 0, 0, 0, pmin, pmax);
  pd.AddPartData(np, idp.data(), pos.data(), vel.data(), rho.data());
  pd.SaveFileCase(name);
  std::printf("%s: dp %g, h %g, c0 %g, b %g, %u particles (%u boundary, %u fluid)\n", out.c_str(), dp, h, c0, b, np, nb, nf);
  return 0;
}
