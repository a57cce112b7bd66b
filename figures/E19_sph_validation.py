"""E19 figure, SPH half: the validation cases with an exact answer against the particle spacing:
the hydrostatic tank's largest pressure error below its top two layers (target 2 %) and Poiseuille
flow's centre-line speed over the analytic one (target 3 %).

Reads results/E19_sph_validation.csv (`make all`); writes
  figures/E19_sph_validation.pdf, .png     both errors against the spacing, the targets dashed
  paper/generated/E19_sph_validation_numbers.tex   \\newcommand macros for the numbers the text quotes
"""
import style
from nbodylab import paper

EXP = "E19_sph_validation"
GAP = 1e-3  # the Poiseuille case's gap (m)
TARGETS = {"hydrostatic": 2.0, "poiseuille": 3.0}  # per cent (spec)


def main():
    rows, meta = paper.load_results(EXP)
    rows, failed = paper.split_failures(rows)
    tank = sorted((r for r in rows if r["case"] == "hydrostatic"), key=lambda r: -float(r["dx"]))
    flow = sorted((r for r in rows if r["case"] == "poiseuille"), key=lambda r: -float(r["dx"]))
    tank_err = [100 * float(r["pressure_error"]) for r in tank]
    flow_err = [100 * abs(float(r["centre_line_ratio"]) - 1) for r in flow]
    across = [round(GAP / float(r["dx"])) for r in flow]

    fig, axes = style.figure(1, 2, height=2.6)
    ax = axes[0]
    ax.plot([float(r["dx"]) for r in tank], tank_err, "o-", color="tab:blue")
    ax.axhline(TARGETS["hydrostatic"], color="grey", ls="--", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("spacing dx (m), tank 0.2 m deep")
    ax.set_ylabel(r"largest $|p - \rho_0 g d| / \rho_0 g d$ (%)")
    ax.set_title("hydrostatic tank, t = 0.5 s")
    ax.set_ylim(0, None)
    ax = axes[1]
    ax.plot(across, flow_err, "s-", color="tab:red")
    ax.axhline(TARGETS["poiseuille"], color="grey", ls="--", lw=0.8)
    ax.set_xlabel("particles across the gap")
    ax.set_ylabel(r"centre-line speed error (%)")
    ax.set_title("Poiseuille flow, t = 0.7 s")
    ax.set_ylim(0, None)
    style.save(fig, EXP)

    sources = [f"results/{EXP}.csv"]
    macros = {
        "EnineteenSphTankFinestDx": f"{float(tank[-1]['dx']):g}" if tank else paper.MISSING,
        "EnineteenSphTankFinestError": f"{tank_err[-1]:.2f}" if tank else paper.MISSING,
        "EnineteenSphTankCoarsestError": f"{tank_err[0]:.2f}" if tank else paper.MISSING,
        "EnineteenSphTankParticles": tank[-1]["n"] if tank else paper.MISSING,
        "EnineteenSphFlowFinestAcross": str(across[-1]) if flow else paper.MISSING,
        "EnineteenSphFlowFinestError": f"{flow_err[-1]:.1f}" if flow else paper.MISSING,
        "EnineteenSphFlowCoarsestAcross": str(across[0]) if flow else paper.MISSING,
        "EnineteenSphFlowCoarsestError": f"{flow_err[0]:.1f}" if flow else paper.MISSING,
        "EnineteenSphValidationMassChangeMax": (f"{max(abs(float(r['mass_change'])) for r in rows):g}"
                                                if rows else paper.MISSING),
        "EnineteenSphValidationEscaped": str(sum(int(r["escaped"]) for r in rows)) if rows else paper.MISSING,
        "EnineteenSphValidationFailed": str(len(failed)),
    }
    paper.write_macros("E19_sph_validation_numbers.tex", macros, __file__, sources)


if __name__ == "__main__":
    main()
