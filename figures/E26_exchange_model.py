"""E26 exchange model, figure and numbers: the bytes a rank of mpi-octree sends per evaluation,
the geometric model (experiments/exchange_model.py) against E26's measurements and extrapolated.

Reads results/E26_exchange_model.csv; writes
  figures/E26_exchange_model.pdf, .png
      (a) measured (markers) and model (lines) bytes a rank sends, mean and most, against P, one
          colour per N;
      (b) the model's bytes a rank sends at 2^24 and 2^26 bodies a rank against P (weak scaling),
          and the exchange's share of the step on the network line, beside the published runs'
          ranks (Bonsai's GPUs on Titan; Cornerstone's count of GPUs is not in the sources found).
  paper/generated/E26_exchange_numbers.tex     \\newcommand macros for the numbers the text quotes
"""
import style

from nbodylab import paper

pow2 = style.power_of_two_text  # "2^{k}" in TeX

EXP = "E26_exchange_model"
COLOURS = ["tab:blue", "tab:red", "tab:green", "tab:purple"]


def main():
    rows, meta = paper.load_results(EXP)
    measured = [r for r in rows if r["kind"] == "measured"]
    extra = [r for r in rows if r["kind"] == "extrapolated"]
    fig, (a, b) = style.figure(1, 2, height=2.8)
    for n, colour in zip(sorted({int(r["n"]) for r in measured}), COLOURS):
        pts = sorted((int(r["ranks"]), r) for r in measured if int(r["n"]) == n)
        ps = [p for p, _ in pts]
        a.plot(ps, [float(r["measured_bytes_mean"]) / 1e6 for _, r in pts], "o", color=colour,
               label=f"$N = {pow2(n)}$ measured")
        a.plot(ps, [float(r["measured_bytes_max"]) / 1e6 for _, r in pts], "^", color=colour, mfc="none")
        a.plot(ps, [float(r["model_bytes_mean"]) / 1e6 for _, r in pts], "-", color=colour)
        a.plot(ps, [float(r["model_bytes_max"]) / 1e6 for _, r in pts], ":", color=colour)
    a.set_xscale("log", base=2)
    a.set_yscale("log")
    a.set_xlabel("ranks P")
    a.set_ylabel("MB a rank sends per evaluation")
    a.set_title("(a) measured (o mean, ^ most) and model\n(line mean, dotted most)", fontsize=8)
    a.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    share = b.twinx()
    for per_rank, colour in zip(sorted({int(r["bodies_per_rank"]) for r in extra}), COLOURS):
        pts = sorted((int(r["ranks"]), r) for r in extra if int(r["bodies_per_rank"]) == per_rank)
        ps = [p for p, _ in pts]
        b.plot(ps, [float(r["model_bytes_mean"]) / 1e6 for _, r in pts], "s-", color=colour,
               label=f"${pow2(per_rank)}$ a rank: MB sent")
        share.plot(ps, [100 * float(r["exchange_share_network"]) for _, r in pts], "d--", color=colour, mfc="none",
                   label=f"${pow2(per_rank)}$ a rank: exchange share")
    bonsai = next(p for p in meta["parameters"]["published"] if p["code"].startswith("Bonsai"))
    b.axvline(bonsai["gpus"], color="0.4", lw=0.8)
    b.text(bonsai["gpus"], b.get_ylim()[0] * 1.3, f" Bonsai: {bonsai['gpus']} GPUs,\n"
           f" {bonsai['particles'] / bonsai['gpus'] / 1e6:.0f} M particles each", fontsize=6, ha="right", color="0.3")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("ranks (GPUs) P, weak scaling")
    b.set_ylabel("MB a rank sends per evaluation")
    share.set_ylabel("exchange share of the step, %")
    share.set_ylim(0, 100)
    share.grid(False)
    b.set_title("(b) model extrapolated (network line);\nBonsai's run marked", fontsize=8)
    handles = b.get_legend_handles_labels()[0] + share.get_legend_handles_labels()[0]
    b.legend(handles=handles, fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    style.save(fig, EXP)
    write_numbers(measured, extra, meta)


def write_numbers(measured, extra, meta):
    M = paper.MISSING
    ratios = [float(r["ratio_mean"]) for r in measured]
    most = [float(r["ratio_max"]) for r in measured]
    ess = [float(r["ratio_essential"]) for r in measured]
    at = {(int(r["bodies_per_rank"]), int(r["ranks"])): r for r in extra}
    big_p = max((p for _, p in at), default=None)
    per = sorted({k for k, _ in at})
    host = meta.get("parameters", {}).get("host", {})
    net = meta.get("parameters", {}).get("network", {})
    def mb(r):
        return f"{float(r['model_bytes_mean']) / 1e6:.0f}"
    def pct(r):
        return f"{100 * float(r['exchange_share_network']):.0f}\\,\\%"
    macros = {
        "ETwentySixModelPoints": str(len(measured)) if measured else M,
        "ETwentySixModelRatioLow": f"{min(ratios):.2f}" if ratios else M,
        "ETwentySixModelRatioHigh": f"{max(ratios):.2f}" if ratios else M,
        "ETwentySixModelMostLow": f"{min(most):.2f}" if most else M,
        "ETwentySixModelMostHigh": f"{max(most):.2f}" if most else M,
        "ETwentySixModelEssentialLow": f"{min(ess):.2f}" if ess else M,
        "ETwentySixModelEssentialHigh": f"{max(ess):.2f}" if ess else M,
        "ETwentySixModelMostOutside": str(sum(abs(x - 1) > 0.2 for x in most)) if most else M,
        "ETwentySixModelBandwidth": f"{host['bandwidth_bytes_per_s'] / 1e9:.2f}" if host else M,
        "ETwentySixModelLatency": f"{host['latency_s'] * 1e6:.1f}" if host else M,
        "ETwentySixModelNetBandwidth": f"{net['bandwidth_bytes_per_s'] / 1e9:.0f}" if net else M,
        "ETwentySixModelNetLatency": f"{net['latency_s'] * 1e6:.0f}" if net else M,
        "ETwentySixModelBigP": str(big_p) if big_p else M,
        "ETwentySixModelSmallMB": mb(at[(per[0], big_p)]) if per and big_p else M,
        "ETwentySixModelLargeMB": mb(at[(per[-1], big_p)]) if per and big_p else M,
        "ETwentySixModelSmallShare": pct(at[(per[0], big_p)]) if per and big_p else M,
        "ETwentySixModelLargeShare": pct(at[(per[-1], big_p)]) if per and big_p else M,
        "ETwentySixModelSmallTwoMB": mb(at[(per[0], 2)]) if per and (per[0], 2) in at else M,
        "ETwentySixModelSharedCells": f"{float(at[(per[0], big_p)]['model_shared_cells']):.0f}" if per and big_p else M,
    }
    paper.write_macros("E26_exchange_numbers.tex", macros, __file__, [f"results/{EXP}.csv"])


if __name__ == "__main__":
    main()
