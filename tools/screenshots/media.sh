#!/usr/bin/env bash
# Make the clips and slides in docs/ from real runs on the simulator: `bash tools/screenshots/media.sh`.
# GPUVIZ may name another gpuviz command, e.g. GPUVIZ="python -m gpuviz".
set -euo pipefail
cd "$(dirname "$0")/../../docs"
gpuviz=${GPUVIZ:-gpuviz}
traces=$(mktemp -d)
$gpuviz demo 10 --backend sim --out "$traces/race" > /dev/null
$gpuviz demo 14 --backend sim --out "$traces/matmul" > /dev/null
race=$traces/race/000-cudakernel0.npz
tiled=$traces/matmul/001-matmul_tiled.npz

# lesson 10: the race's 1,024 blocks of 1,024 threads on 132 SMs, lighting up as executed, coloured by SM
# (clips take the default size, 640x360: the picture fills it)
for out in race.gif race.mp4; do
  $gpuviz render "$race" --animate --order "as executed" --colour-by SM --fps 8 --out "$out"
done
# lesson 14: the tiled matrix multiply, 9 blocks of 8x8 threads, block by block and warp by warp
for out in matmul-tiled.gif matmul-tiled.mp4; do
  $gpuviz render "$tiled" --animate --order logical --fps 4 --out "$out"
done
# slides at 1920x1080: the view's drawing (no controls) with its title, words, legend and caption
$gpuviz render "$race" --view timeline --size 1920x1080 --select 5000 --out slide-race-timeline.png
$gpuviz render "$race" --colour-by SM --order "as executed" --at 0.5 --size 1920x1080 --out slide-race-grid.png
$gpuviz render "$tiled" --view data --size 1920x1080 --select 70 --theme light --out slide-matmul-data.png
rm -r "$traces"
