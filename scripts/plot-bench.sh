#!/usr/bin/env bash
# The plots of docs/PERFORMANCE.md, drawn with gnuplot from news-bench's --json output:
#   scaling.png         time per article against N, ours and sqlite3's json_each (wall and CPU), from --scaling --json
#   search-latency.png  the distribution of spawn-to-exit times of news list and news search beside sqlite3, from
#                       --cli DB --json (or a whole run's --json): every run's wall time, as a cumulative share
#
# usage: scripts/plot-bench.sh SCALING.json CLI.json [OUTPUT_FOLDER]   (default docs/images)
# Needs python3 (to read the JSON) and gnuplot (Debian: apt-get install gnuplot-nox).
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 SCALING.json CLI.json [OUTPUT_FOLDER]" >&2
  exit 64
fi
scaling=$1
cli=$2
out=${3:-docs/images}
command -v gnuplot >/dev/null || { echo "$0: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 69; }
mkdir -p "$out"
data=$(mktemp -d)
trap 'rm -rf "$data"' EXIT

python3 - "$scaling" "$cli" "$data" <<'PY'
import json, sys
scaling, cli, folder = sys.argv[1:4]

with open(scaling) as f:
    steps = json.load(f)["steps"]
with open(folder + "/scaling.dat", "w") as out:
    out.write("# N  ours-wall-us  ours-cpu-us  json_each-wall-us  json_each-cpu-us (per article)\n")
    for step in steps:
        n = step["payload"]["articles"]
        ours, theirs = step["ours"], step.get("jsonEach")
        row = [n, ours["seconds"] / n * 1e6, ours["cpuSeconds"] / n * 1e6]
        row += [theirs["seconds"] / n * 1e6, theirs["cpuSeconds"] / n * 1e6] if theirs else ["NaN", "NaN"]
        out.write(" ".join(str(value) for value in row) + "\n")

with open(cli) as f:
    document = json.load(f)
latencies = document.get("commandLine") or [
    latency for step in document.get("steps", []) for latency in step.get("commandLine", [])]
names = []
for index, latency in enumerate(latencies):
    if not latency["name"].startswith(("news search", "news list")):
        continue
    for who in ("ours", "sqlite"):
        runs = latency.get(who)
        if not runs or "samples" not in runs:
            continue
        samples = sorted(runs["samples"])
        label = latency["name"] if who == "ours" else "sqlite3, the same query (" + latency["name"] + ")"
        name = "latency-%d-%s.dat" % (index, who)
        with open(folder + "/" + name, "w") as out:
            for rank, seconds in enumerate(samples, start=1):
                out.write("%f %f\n" % (seconds * 1000, rank / len(samples)))
        # One colour per command, ours solid and sqlite3 dashed.
        names.append((name, label.replace('"', "'"), index, "1" if who == "ours" else "2"))
with open(folder + "/latency.list", "w") as out:
    colours = {}
    for name, label, command, dash in names:
        colour = colours.setdefault(command, len(colours) + 1)
        out.write("\t".join([name, label, str(colour), dash]) + "\n")
PY

load=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" / ".join(d.get("loadAverage", [])) or "not recorded")' "$cli")

gnuplot <<GP
set terminal pngcairo size 900,560 font "DejaVu Sans,11"
set output "$out/scaling.png"
set title "First import: time per article against N (news-bench --scaling)" noenhanced
set logscale x
set format x "%.0s%c"
set offsets graph 0.05, graph 0.05, 0, 0
set xlabel "articles (N)"
set ylabel "microseconds per article"
set yrange [0:*]
set key top right noenhanced
set grid
plot "$data/scaling.dat" using 1:2 with linespoints lw 2 pt 7 title "ours, wall", \
     "" using 1:3 with linespoints lw 1 dt 2 pt 7 title "ours, CPU (user + system)", \
     "" using 1:4 with linespoints lw 2 pt 5 title "sqlite3 json_each, wall", \
     "" using 1:5 with linespoints lw 1 dt 2 pt 5 title "sqlite3 json_each, CPU"
GP

plots=""
while IFS=$'\t' read -r name label colour dash; do
  [ -n "$plots" ] && plots+=", "
  plots+="\"$data/$name\" using 1:2 with steps lw 2 lc $colour dt $dash title \"$label\""
done <"$data/latency.list"
if [ -n "$plots" ]; then
  gnuplot <<GP
set terminal pngcairo size 900,560 font "DejaVu Sans,11"
set output "$out/search-latency.png"
set title "Spawn to exit, every run (news-bench --cli; load average before / after: $load)" noenhanced
set xlabel "milliseconds (wall clock)"
set ylabel "share of runs at most this long"
set yrange [0:1]
set xrange [0:*]
set key bottom right noenhanced
set grid
plot $plots
GP
fi
echo "wrote $out/scaling.png${plots:+ and $out/search-latency.png}"
