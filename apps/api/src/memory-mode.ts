import { setFlagsFromString } from 'node:v8';

/**
 * V8's memory-saving mode (`--optimize-for-size`), set before anything else is loaded: it makes the heap grow
 * less eagerly between collections. The informers replace whole cached objects on every watch event, so a burst of
 * pod changes leaves the old generation full of garbage; by default V8 grows the heap to several times what is
 * live before collecting it (at 10,000 pods, 424 MB of heap for 133 MB in use).
 *
 * What it costs and saves, `npm run bench:convergence` at 1,000 pods: peak RSS 163 MiB instead of 182 MiB, and
 * 174–178 MiB instead of 203 MiB in interleaved `--ours-only --profile` runs; at 10,000 pods (`--scale`) 255 MiB
 * against kube-controller-manager's 278 MiB, where it was 393 MiB before. It is paid in CPU: those interleaved runs
 * used 7.5–7.9 CPU s over the three phases instead of 6.5 s, garbage collection taking 6–13% of each phase
 * instead of about 3%. `--heap-growing-percent=50` instead saved less memory (196 MiB) for the same CPU.
 * Set here rather than on every command line that starts the app, as NODE_OPTIONS does not accept this flag; on
 * the command line it also shrinks the young generation (144–147 MiB at 1,000 pods, for 4–12% more CPU still).
 */
setFlagsFromString('--optimize-for-size');
