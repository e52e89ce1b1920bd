/*
 * test_triage.c: the class table, the rule table against realistic logs of
 * each failure (as PyTorch, JAX/XLA, Ray and NCCL print them), the priority
 * order, the exit-status rules, and the cgroup oom_kill counter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "err.h"
#include "triage.h"
#include "unit.h"

/* ---- fixtures: what real runs print ---- */

static const char log_cuda_oom[] =
	"Epoch 3:  41%|####      | 2113/5155 [12:01<17:18,  2.93it/s, loss=1.82, v_num=0]\n"
	"Traceback (most recent call last):\n"
	"  File \"/root/autodl-tmp/run1/train.py\", line 214, in <module>\n"
	"    main()\n"
	"  File \"/root/autodl-tmp/run1/train.py\", line 187, in main\n"
	"    loss.backward()\n"
	"  File \"/root/miniconda3/lib/python3.10/site-packages/torch/_tensor.py\", line 522, in backward\n"
	"    torch.autograd.backward(\n"
	"  File \"/root/miniconda3/lib/python3.10/site-packages/torch/autograd/__init__.py\", line 266, in backward\n"
	"    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass\n"
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
	"capacity of 23.65 GiB of which 1.12 GiB is free. Process 2190 has 22.52 GiB memory in use. "
	"Of the allocated memory 20.31 GiB is allocated by PyTorch, and 1.71 GiB is reserved by "
	"PyTorch but unallocated. If reserved but unallocated memory is large try setting "
	"PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
	"for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n";

static const char log_cuda_oom_old[] =
	"RuntimeError: CUDA error: out of memory\n"
	"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n"
	"For debugging consider passing CUDA_LAUNCH_BLOCKING=1.\n";

static const char log_hbm_oom[] =
	"I0131 05:40:12.123456 140234 compiler_base.cc:2587] compiling train_step\n"
	"Traceback (most recent call last):\n"
	"  File \"/opt/marin/experiments/isoflop_sweep.py\", line 412, in <module>\n"
	"    executor_main(steps=steps)\n"
	"  File \"/opt/levanter/src/levanter/main/train_lm.py\", line 201, in main\n"
	"    state = trainer.train_step(state, batch)\n"
	"jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. "
	"Ran out of memory in memory space hbm. Used 17.52G of 15.48G hbm. Exceeded hbm capacity by 2.04G.\n"
	"\n"
	"Total hbm usage >= 18.04G:\n"
	"    reserved        530.00M \n"
	"    program          17.52G \n"
	"    arguments            0B \n"
	"\n"
	"Output size 0B; shares 0B with arguments.\n"
	"\n"
	"Program hbm requirement 17.52G:\n"
	"    global            65.0K\n"
	"    scoped            2.06M\n"
	"    HLO temp         17.51G (100.0% utilization: Unpadded (17.36G) Padded (17.36G), 0.9% fragmentation (165.38M))\n"
	"\n"
	"  Largest program allocations in hbm:\n"
	"\n"
	"  1. Size: 4.00G\n"
	"     Operator: op_name=\"jit(train_step)/jit(main)/transpose(jvp(LlamaLMHeadModel))/dot_general\"\n"
	"     Shape: f32[4096,262144]{1,0:T(8,128)}\n";

static const char log_disk_full[] =
	"step 12000 | loss 1.734 | lr 2.9e-04\n"
	"Saving checkpoint to /root/autodl-tmp/run1/checkpoints/step_12000.pt\n"
	"Traceback (most recent call last):\n"
	"  File \"/root/autodl-tmp/run1/train.py\", line 301, in <module>\n"
	"    torch.save(state, path)\n"
	"  File \"/root/miniconda3/lib/python3.10/site-packages/torch/serialization.py\", line 628, in save\n"
	"    with _open_zipfile_writer(f) as opened_zipfile:\n"
	"  File \"/root/miniconda3/lib/python3.10/site-packages/torch/serialization.py\", line 476, in __exit__\n"
	"    self.file_like.write_end_of_file()\n"
	"RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 4294967424 vs 4294967312\n"
	"terminate called after throwing an instance of 'c10::Error'\n"
	"  what():  basic_ios::clear: iostream error\n";

static const char log_disk_full_errno[] =
	"OSError: [Errno 28] No space left on device: '/root/autodl-tmp/run1/checkpoints/step_9000/optimizer.pt'\n";

static const char log_cgroup_oom[] =
	"Epoch 0:  12%|#2        | 620/5155 [03:10<23:11,  3.26it/s]\n"
	"Traceback (most recent call last):\n"
	"  File \"/usr/lib/python3.10/site-packages/torch/utils/data/dataloader.py\", line 1133, in _try_get_data\n"
	"    data = self._data_queue.get(timeout=timeout)\n"
	"RuntimeError: DataLoader worker (pid 41235) is killed by signal: Killed. \n";

static const char log_bare_killed[] =
	"step 4410/5155 loss=1.91\n"
	"step 4420/5155 loss=1.90\n"
	"Killed\n";

static const char log_bash_killed[] =
	"step 4420/5155 loss=1.90\n"
	"bash: line 1:  4242 Killed                  python train.py --resume latest\n";

static const char log_node_lost[] =
	"(TrainWorker pid=3211, ip=10.130.0.12) step 1500 loss=2.01\n"
	"Traceback (most recent call last):\n"
	"  File \"/opt/marin/lib/marin/src/marin/run/ray_run.py\", line 88, in main\n"
	"    ray.get(refs)\n"
	"ray.exceptions.OwnerDiedError: Failed to retrieve object 00ffffffffffffffffffffffffffffffffffffff0100000001000000. "
	"To see information about where this ObjectRef was created in Python, set the environment variable "
	"RAY_record_ref_creation_sites=1 during `ray start` and `ray.init()`.\n"
	"\n"
	"The object's owner has exited. This is the Python worker that first created the ObjectRef via "
	"`.remote()` or `ray.put()`. Check cluster logs (`/tmp/ray/session_latest/logs/*01000000ffffffffffff*` "
	"at IP address 10.130.0.12) for more information about the Python worker failure.\n";

static const char log_node_marked_dead[] =
	"(autoscaler +2m3s) Warning: The following resource request cannot be scheduled right now\n"
	"2026-01-31 05:21:07,123 WARNING worker.py:2052 -- The node with node id: 5a1e2f and address: "
	"10.130.0.7 and node name: 10.130.0.7 has died. Check the dashboard for details.\n";

static const char log_nccl_watchdog[] =
	"[rank3]:[E ProcessGroupNCCL.cpp:523] [Rank 3] Watchdog caught collective operation timeout: "
	"WorkNCCL(SeqNum=48213, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) "
	"ran for 600327 milliseconds before timing out.\n"
	"[rank3]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due to the "
	"asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.\n"
	"[rank3]:[E ProcessGroupNCCL.cpp:543] To avoid data inconsistency, we are taking the entire process down.\n"
	"terminate called after throwing an instance of 'c10::DistBackendError'\n";

static const char log_nccl_runtime_error[] =
	"Traceback (most recent call last):\n"
	"  File \"/workspace/train_ddp.py\", line 88, in <module>\n"
	"    dist.all_reduce(t)\n"
	"  File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/c10d_logger.py\", line 72, in wrapper\n"
	"    return func(*args, **kwargs)\n"
	"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, "
	"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
	"ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n";

static const char log_no_accel[] =
	"Traceback (most recent call last):\n"
	"  File \"/opt/marin/experiments/tutorials/train_tiny_model_tpu.py\", line 40, in <module>\n"
	"    executor_main(steps=[train])\n"
	"RuntimeError: No accelerator found. Please run on a TPU or GPU.\n"
	"Failed to cleanup driver after error: INTERNAL: FAILED_PRECONDITION\n";

static const char log_cuda_busy[] =
	"Traceback (most recent call last):\n"
	"  File \"train.py\", line 12, in <module>\n"
	"    model.cuda()\n"
	"RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable\n"
	"CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\n";

static const char log_nan[] =
	"step 1180 | loss=2.114 | lr=3.0e-04 | grad_norm=1.02\n"
	"step 1190 | loss=7.881 | lr=3.0e-04 | grad_norm=88.4\n"
	"step 1200 | loss=nan | lr=3.0e-04 | grad_norm=nan\n";

static const char log_nan_hf[] =
	"{'loss': 2.0113, 'grad_norm': 0.81, 'learning_rate': 1.9e-05, 'epoch': 0.41}\n"
	"{'loss': nan, 'grad_norm': nan, 'learning_rate': 1.9e-05, 'epoch': 0.42}\n";

static const char log_nan_stop[] =
	"Loss is nan, stopping training\n";

static const char log_key_error[] =
	"Loading config from configs/llama_ft.yaml\n"
	"Traceback (most recent call last):\n"
	"  File \"/root/autodl-tmp/run1/train.py\", line 57, in <module>\n"
	"    lr = cfg[\"optim\"][\"learning_rate\"]\n"
	"KeyError: 'learning_rate'\n";

static const char log_generic_traceback[] =
	"Traceback (most recent call last):\n"
	"  File \"/root/run/eval.py\", line 9, in <module>\n"
	"    raise RuntimeError(\"eval set mismatch\")\n"
	"RuntimeError: eval set mismatch\n";

/* A healthy run's output: nothing in it may look like a crash. */
static const char log_healthy[] =
	"wandb: Tracking run with wandb version 0.16.3\n"
	"wandb: \xf0\x9f\x9a\x80 View run llama-ft-1 at https://wandb.ai/team/proj/runs/abc123\n"
	"Epoch 1:  50%|#####     | 2577/5155 [14:02<14:03,  3.06it/s, loss=1.41, v_num=0]\n"
	"step 4600/5155 | loss: 1.2345 | grad_norm: 0.91 | loss_scale: 65536.0 | tok/s 41234\n"
	"step 4610/5155 | loss: 1.2301, grad_norm: inf (skipped step, scaler reduced loss_scale)\n"
	"Saving checkpoint to checkpoints/step_4600 (metadata.json written)\n"
	"Training completed in 4h02m\n";

static void
feed(struct triage_scan *ts, const char *log)
{
	const char *p = log, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		triage_scan_line(ts, p, (size_t)(nl - p));
		p = *nl == '\n' ? nl + 1 : nl;
	}
}

static const struct triage_input exit1 = { .exited = 1, .exit_code = 1, .oom_kills = -1 };

/* Scan log fresh and classify it as an exit 1. */
static enum triage_class
classify_log(const char *log, const char **evidence, int *crash)
{
	struct triage_scan ts;
	enum triage_class cls;
	const char *ev = NULL;

	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, log);
	cls = triage_classify(&exit1, &ts, &ev);
	if (crash != NULL)
		*crash = ts.crash_seen;
	if (evidence != NULL)
		*evidence = ev;
	triage_scan_free(&ts);
	return cls;
}

static void
expect_class(const char *log, enum triage_class want, const char *evidence_part, int crash)
{
	struct triage_scan ts;
	enum triage_class cls;
	const char *ev = NULL;

	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, log);
	cls = triage_classify(&exit1, &ts, &ev);
	if (cls != want)
		fail_msg("classified %s, want %s (evidence: %s)", triage_info(cls)->name,
		    triage_info(want)->name, ev != NULL ? ev : "(none)");
	assert_non_null(ev);
	if (strstr(ev, evidence_part) == NULL)
		fail_msg("evidence \"%s\" lacks \"%s\"", ev, evidence_part);
	assert_int_equal(ts.crash_seen, crash);
	triage_scan_free(&ts);
}

static void
test_classes_from_logs(void **state)
{
	(void)state;
	expect_class(log_cuda_oom, TRIAGE_CUDA_OOM, "torch.OutOfMemoryError: CUDA out of memory", 1);
	expect_class(log_cuda_oom_old, TRIAGE_CUDA_OOM, "CUDA error: out of memory", 1);
	expect_class(log_hbm_oom, TRIAGE_HBM_OOM, "Ran out of memory in memory space hbm", 1);
	expect_class(log_disk_full, TRIAGE_DISK_FULL, "basic_ios::clear", 1);
	expect_class(log_disk_full_errno, TRIAGE_DISK_FULL, "[Errno 28]", 1);
	expect_class(log_cgroup_oom, TRIAGE_CGROUP_OOM, "DataLoader worker (pid 41235)", 1);
	expect_class(log_bare_killed, TRIAGE_CGROUP_OOM, "Killed", 1);
	expect_class(log_bash_killed, TRIAGE_CGROUP_OOM, "4242 Killed", 1);
	expect_class(log_node_lost, TRIAGE_NODE_LOST, "ray.exceptions.OwnerDiedError", 1);
	expect_class(log_node_marked_dead, TRIAGE_NODE_LOST, "has died", 1);
	expect_class(log_nccl_watchdog, TRIAGE_NCCL_TIMEOUT, "Watchdog caught collective", 1);
	expect_class(log_nccl_runtime_error, TRIAGE_NCCL_TIMEOUT, "DistBackendError: NCCL error", 1);
	expect_class(log_no_accel, TRIAGE_BAD_ACCELERATOR, "No accelerator found", 1);
	expect_class(log_cuda_busy, TRIAGE_BAD_ACCELERATOR, "is/are busy or unavailable", 1);
	expect_class(log_key_error, TRIAGE_CODE_ERROR, "KeyError: 'learning_rate'", 1);
	expect_class(log_generic_traceback, TRIAGE_CODE_ERROR, "Traceback (most recent", 1);
	/* A NaN loss alone is an alert: no crash signature. */
	expect_class(log_nan, TRIAGE_NAN_LOSS, "step 1200 | loss=nan", 0);
	expect_class(log_nan_hf, TRIAGE_NAN_LOSS, "{'loss': nan", 0);
	expect_class(log_nan_stop, TRIAGE_NAN_LOSS, "Loss is nan", 0);
}

static void
test_evidence_is_specific_line(void **state)
{
	const char *ev = NULL;
	struct triage_scan ts;

	(void)state;
	/* The evidence is the first line of the first rule that hit, in table order. */
	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, log_hbm_oom);
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_HBM_OOM);
	assert_true(strncmp(ev, "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: ", 58) == 0);
	assert_int_equal(ts.traceback_seen, 1);
	/* Without that line the dump still classifies, on its own headings. */
	triage_scan_reset(&ts);
	feed(&ts, strstr(log_hbm_oom, "\nProgram hbm requirement") + 1);
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_HBM_OOM);
	assert_string_equal(ev, "Program hbm requirement 17.52G:");
	assert_int_equal(ts.traceback_seen, 0);
	triage_scan_free(&ts);
}

static void
test_healthy_log(void **state)
{
	struct triage_scan ts;
	const char *ev = (const char *)1;
	struct triage_input ok = { .exited = 1, .exit_code = 0, .oom_kills = 0,
	    .done_required = 1, .done_seen = 1 };
	size_t i;

	(void)state;
	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, log_healthy);
	for (i = 0; i < triage_nrules; i++)
		if (ts.hits[i])
			fail_msg("healthy log hit rule %zu \"%s\" on \"%s\"", i,
			    triage_rules[i].pattern, ts.first_line[i]);
	assert_int_equal(ts.crash_seen, 0);
	assert_int_equal(ts.traceback_seen, 0);
	assert_int_equal(triage_classify(&ok, &ts, &ev), TRIAGE_NONE);
	assert_null(ev);
	/* Failed with nothing recognised. */
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_UNKNOWN);
	assert_null(ev);
	triage_scan_free(&ts);
}

static void
test_priority(void **state)
{
	const char *ev = NULL;
	char *both;

	(void)state;
	/* Traceback and RuntimeError lines appear first, the specific rule still wins. */
	assert_int_equal(classify_log(log_cuda_oom, NULL, NULL), TRIAGE_CUDA_OOM);
	assert_int_equal(classify_log(log_nccl_runtime_error, NULL, NULL), TRIAGE_NCCL_TIMEOUT);
	assert_int_equal(classify_log(log_disk_full, NULL, NULL), TRIAGE_DISK_FULL);
	assert_int_equal(classify_log(log_node_lost, NULL, NULL), TRIAGE_NODE_LOST);

	/* Table order, not line order: a KeyError earlier, then a CUDA OOM -> cuda_oom. */
	both = malloc(sizeof(log_key_error) + sizeof(log_cuda_oom));
	strcpy(both, log_key_error);
	strcat(both, log_cuda_oom);
	assert_int_equal(classify_log(both, &ev, NULL), TRIAGE_CUDA_OOM);
	free(both);

	/* A rank's OOM beats the NCCL timeouts it causes on the other ranks. */
	both = malloc(sizeof(log_nccl_watchdog) + sizeof(log_cuda_oom));
	strcpy(both, log_nccl_watchdog);
	strcat(both, log_cuda_oom);
	assert_int_equal(classify_log(both, NULL, NULL), TRIAGE_CUDA_OOM);
	free(both);

	/* Ray's autoscaler warning ranks below any cause in the code; alone it is the cluster's. */
	{
		static const char autoscaler[] = "(autoscaler +2m) Warning: The following resource "
		    "request cannot be scheduled right now: {'GPU': 8.0}. Resources are unsatisfied "
		    "resource demand\n";

		both = malloc(sizeof(autoscaler) + sizeof(log_key_error));
		strcpy(both, autoscaler);
		strcat(both, log_key_error);
		assert_int_equal(classify_log(both, NULL, NULL), TRIAGE_CODE_ERROR);
		free(both);
		expect_class(autoscaler, TRIAGE_CLUSTER_FAILURE, "unsatisfied resource demand", 0);
	}

	/* A NaN loss before a crash: the crash's own class ranks after nan only for code errors. */
	both = malloc(sizeof(log_nan) + sizeof(log_key_error));
	strcpy(both, log_nan);
	strcat(both, log_key_error);
	assert_int_equal(classify_log(both, NULL, NULL), TRIAGE_NAN_LOSS);
	free(both);
}

static void
test_exit_rules(void **state)
{
	struct triage_scan ts;
	struct triage_input in;
	const char *ev = (const char *)1;

	(void)state;
	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, "step 4410/5155 loss=1.91\n");

	/* exit 137 / SIGKILL with nothing in the log: cgroup OOM. */
	in = (struct triage_input){ .exited = 1, .exit_code = 137, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_CGROUP_OOM);
	assert_null(ev);
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CGROUP_OOM);
	/* ... unless we sent it. */
	in.we_stopped = 1;
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_UNKNOWN);

	/* SIGTERM from outside is a preemption; from us it is not. */
	in = (struct triage_input){ .exited = 0, .signo = SIGTERM, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_PREEMPTED);
	in = (struct triage_input){ .exited = 1, .exit_code = 143, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_PREEMPTED);
	in.we_stopped = 1;
	assert_int_not_equal(triage_classify(&in, &ts, NULL), TRIAGE_PREEMPTED);
	in = (struct triage_input){ .exited = 0, .signo = SIGTERM, .we_stopped = 1, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_UNKNOWN);

	/* Exit 0: success only with the done line when one is required. */
	in = (struct triage_input){ .exited = 1, .exit_code = 0, .done_required = 1, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NO_DONE_LINE);
	in.done_seen = 1;
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NONE);
	in = (struct triage_input){ .exited = 1, .exit_code = 0, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NONE);

	/* Our timeout, the oom_kill counter, lost status and reboot. */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .we_timed_out = 1, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_TIMEOUT);
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_kills = 1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CGROUP_OOM);
	in = (struct triage_input){ .exited = 0, .signo = SIGTERM, .oom_kills = 2 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CGROUP_OOM);
	in = (struct triage_input){ .status_lost = 1, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_LOST);
	in.rebooted = 1;
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_REBOOT);
	/* Exit 0 wins over a scary log: the log is evidence only for failures. */
	feed(&ts, log_cuda_oom);
	in = (struct triage_input){ .exited = 1, .exit_code = 0, .oom_kills = -1 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NONE);
	/* A log rule beats the bare-SIGKILL fallback. */
	in = (struct triage_input){ .exited = 1, .exit_code = 137, .oom_kills = 0 };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_CUDA_OOM);
	assert_non_null(ev);

	/* Reset forgets the attempt. */
	triage_scan_reset(&ts);
	assert_int_equal(ts.crash_seen, 0);
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_UNKNOWN);
	assert_int_equal(triage_classify(&exit1, NULL, &ev), TRIAGE_UNKNOWN);
	triage_scan_free(&ts);
}

static void
test_evidence_sanitized_and_capped(void **state)
{
	struct triage_scan ts;
	const char *ev = NULL;
	char line[2000];

	(void)state;
	assert_int_equal(triage_scan_init(&ts), 0);
	memset(line, 'x', sizeof(line));
	memcpy(line, "\x1b[31mCUDA out of memory\x1b[0m", 27);
	triage_scan_line(&ts, line, sizeof(line));
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_CUDA_OOM);
	assert_int_equal(strlen(ev), 512);
	assert_memory_equal(ev, "?[31mCUDA out of memory?[0m", 27);
	/* The first matching line is kept, not the latest. */
	triage_scan_line(&ts, "CUDA out of memory again", 24);
	assert_int_equal(triage_classify(&exit1, &ts, &ev), TRIAGE_CUDA_OOM);
	assert_int_equal(strlen(ev), 512);
	triage_scan_free(&ts);
}

static void
test_class_table(void **state)
{
	static const char *const names[TRIAGE_NCLASSES] = {
		"none", "disk_full", "cgroup_oom", "cuda_oom", "hbm_oom", "node_lost",
		"nccl_timeout", "bad_accelerator", "nan_loss", "code_error", "preempted",
		"killed", "timeout", "no_done_line", "lost", "reboot", "missing_artifacts", "cluster_failure", "unknown",
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < TRIAGE_NCLASSES; i++) {
		const struct triage_class_info *ci = triage_info((enum triage_class)i);

		assert_int_equal(ci->cls, i);
		assert_string_equal(ci->name, names[i]);
		assert_non_null(ci->title);
		assert_true(strlen(ci->title) > 3);
		assert_non_null(ci->remediation);
		assert_true(strlen(ci->remediation) > 10);
		assert_int_equal(triage_by_name(ci->name), i);
		for (j = 0; j < i; j++)
			assert_string_not_equal(ci->name, triage_classes[j].name);
	}
	assert_int_equal(triage_by_name("no_such_class"), TRIAGE_NCLASSES);
	assert_int_equal(triage_by_name(NULL), TRIAGE_NCLASSES);
	assert_int_equal(triage_info(TRIAGE_NCLASSES)->cls, TRIAGE_UNKNOWN);

	/* Retry and infra policy. */
	for (i = 0; i < TRIAGE_NCLASSES; i++) {
		int retry = i == TRIAGE_NODE_LOST || i == TRIAGE_NCCL_TIMEOUT ||
		    i == TRIAGE_BAD_ACCELERATOR || i == TRIAGE_PREEMPTED ||
		    i == TRIAGE_REBOOT || i == TRIAGE_LOST || i == TRIAGE_KILLED ||
		    i == TRIAGE_CLUSTER_FAILURE;
		int infra = i == TRIAGE_NODE_LOST || i == TRIAGE_PREEMPTED || i == TRIAGE_REBOOT;

		assert_int_equal(triage_classes[i].retryable, retry);
		assert_int_equal(triage_classes[i].infra, infra);
	}
	assert_non_null(strstr(triage_classes[TRIAGE_DISK_FULL].remediation, "df -i"));
	assert_non_null(strstr(triage_classes[TRIAGE_CGROUP_OOM].remediation, "memory.max"));

	/*
	 * Every rule names a real failure class; only nan_loss and the autoscaler's
	 * cluster_failure (a warning while the job waits) are not crashes.
	 */
	for (i = 0; i < triage_nrules; i++) {
		assert_true((triage_rules[i].cls > TRIAGE_NONE && triage_rules[i].cls < TRIAGE_PREEMPTED) ||
		    triage_rules[i].cls == TRIAGE_CLUSTER_FAILURE);
		assert_int_equal(triage_rules[i].crash != 0, triage_rules[i].cls != TRIAGE_NAN_LOSS &&
		    triage_rules[i].cls != TRIAGE_CLUSTER_FAILURE);
		/* SIGKILL evidence only stands for cgroup_oom (the counter may make it killed). */
		if (triage_rules[i].crash == TRIAGE_SIGKILL_EVIDENCE)
			assert_int_equal(triage_rules[i].cls, TRIAGE_CGROUP_OOM);
	}
	/* The generic traceback rule, then only the autoscaler's warning (below any code cause). */
	assert_non_null(strstr(triage_rules[triage_nrules - 2].pattern, "Traceback"));
	assert_int_equal(triage_rules[triage_nrules - 1].cls, TRIAGE_CLUSTER_FAILURE);
}

static void
test_nan_negatives(void **state)
{
	static const char *const not_nan[] = {
		"step 10 | loss=2.3451 | grad_norm: nan",
		"loss: 2.31, grad_norm: nan",
		"loss_scale: inf",
		"closs=nan",
		"loss=nano-gpt",
		"Loss is finite",
		"Gradient overflow. Skipping step, loss scaler 0 reducing loss scale to 32768.0",
	};
	static const char *const is_nan[] = {
		"loss=nan", "Loss: NaN", "train/loss: inf", "val_loss = -inf",
		"epoch 3 loss  nan", "LOSS=+INF",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(not_nan) / sizeof(not_nan[0]); i++)
		if (classify_log(not_nan[i], NULL, NULL) != TRIAGE_UNKNOWN)
			fail_msg("\"%s\" classified as a failure", not_nan[i]);
	for (i = 0; i < sizeof(is_nan) / sizeof(is_nan[0]); i++)
		if (classify_log(is_nan[i], NULL, NULL) != TRIAGE_NAN_LOSS)
			fail_msg("\"%s\" not seen as a NaN loss", is_nan[i]);
}

static void
write_file(const char *path, const char *s)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(s, fp);
	fclose(fp);
}

static void
test_oom_kill_count(void **state)
{
	char dir[] = "/tmp/wk-triage-XXXXXX", path[256], *why = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(cgroup_oom_kill(dir, &why), -1);
	assert_non_null(why);
	free(why);

	/* cgroup v1: memory.oom_control, oom_kill_disable must not be mistaken. */
	snprintf(path, sizeof(path), "%s/memory.oom_control", dir);
	write_file(path, "oom_kill_disable 0\nunder_oom 0\noom_kill 4\n");
	assert_int_equal(cgroup_oom_kill(dir, &why), 4);
	free(why);

	/* cgroup v2 memory.events wins when present; "oom" and "oom_group_kill" are other lines. */
	snprintf(path, sizeof(path), "%s/memory.events", dir);
	write_file(path, "low 0\nhigh 0\nmax 12\noom 3\noom_kill 2\noom_group_kill 0\n");
	assert_int_equal(cgroup_oom_kill(dir, &why), 2);
	free(why);

	/* A memory.events without the line (old kernel): fall back to v1. */
	write_file(path, "low 0\nhigh 0\nmax 0\noom 0\n");
	assert_int_equal(cgroup_oom_kill(dir, &why), 4);
	free(why);

	assert_int_equal(unit_rmrf(dir), 0);
}

/* ---- a SIGKILL we did not send: the stage cgroup's oom_kill counter decides ---- */

static void
test_sigkill_counter_decides(void **state)
{
	struct triage_scan ts;
	struct triage_input in;
	const char *ev = (const char *)1;
	char *guess = (char *)1;

	(void)state;
	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, "step 4410/5155 loss=1.91\n");

	/* grew: cgroup_oom, no guess */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_known = 1, .oom_kills = 1 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CGROUP_OOM);
	assert_null(guess);
	in = (struct triage_input){ .exited = 1, .exit_code = 137, .oom_known = 1, .oom_kills = 2 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CGROUP_OOM);
	assert_null(guess);

	/* readable and unchanged: killed (SIGKILL, or the shell's exit 137 for its child) */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_known = 1, .oom_kills = 0 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_KILLED);
	assert_null(guess);
	assert_null(ev);
	in = (struct triage_input){ .exited = 1, .exit_code = 137, .oom_known = 1, .oom_kills = 0 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_KILLED);
	assert_null(guess);
	assert_true(triage_info(TRIAGE_KILLED)->retryable);
	assert_non_null(strstr(triage_info(TRIAGE_KILLED)->remediation, "dmesg"));
	/* ... unless we sent it */
	in.we_stopped = 1;
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_UNKNOWN);
	assert_null(guess);

	/* unreadable: cgroup_oom, a guess that says why */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_kills = -1,
	    .oom_why = "/sys/fs/cgroup/memory/x/memory.oom_control: No such file or directory" };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CGROUP_OOM);
	assert_non_null(guess);
	assert_non_null(strstr(guess, "no oom_kill counter readable for the stage's cgroup "
	    "(/sys/fs/cgroup/memory/x/memory.oom_control: No such file or directory)"));
	assert_non_null(strstr(guess, "most foreign SIGKILLs are OOM kills"));
	free(guess);
	in = (struct triage_input){ .exited = 1, .exit_code = 137, .oom_kills = -1 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CGROUP_OOM);
	assert_non_null(guess);
	assert_non_null(strstr(guess, "not recorded"));
	free(guess);
	/* a counter value without oom_known (a memset input) is not "unchanged" */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_kills = 0 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CGROUP_OOM);

	/* A traceback logged (and caught) earlier did not kill it: the counter outranks the log. */
	feed(&ts, "Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
	    "ValueError: bad sample 17, skipped\n");
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_known = 1, .oom_kills = 0 };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_KILLED);
	/* ... but with the counter unreadable the log rule still explains it */
	in = (struct triage_input){ .exited = 0, .signo = SIGKILL, .oom_kills = -1 };
	assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CODE_ERROR);
	assert_null(guess);
	/* other exits with an unchanged counter are not "killed" */
	in = (struct triage_input){ .exited = 1, .exit_code = 1, .oom_known = 1, .oom_kills = 0 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CODE_ERROR);
	in = (struct triage_input){ .exited = 0, .signo = SIGTERM, .oom_known = 1, .oom_kills = 0 };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_PREEMPTED);
	triage_scan_free(&ts);
}

/* What sh and bash print for ANY SIGKILL of a child is evidence of a SIGKILL, not of an OOM. */
static void
test_sigkill_log_lines(void **state)
{
	static const char *const lines[] = {
		"step 7/12 loss=0.4\nKilled\n",
		"step 7/12 loss=0.4\nbash: line 1:  4242 Killed                  python train.py\n",
		"sh: line 1: 977 Killed python3 train.py --out .\n",
		"Traceback (most recent call last):\n"
		"  File \"/usr/lib/python3/dist-packages/torch/utils/data/dataloader.py\", line 1120, "
		"in _try_get_data\n"
		"RuntimeError: DataLoader worker (pid 4711) is killed by signal: Killed. \n",
	};
	struct triage_scan ts;
	struct triage_input in;
	const char *ev;
	char *guess;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		assert_int_equal(triage_scan_init(&ts), 0);
		feed(&ts, lines[i]);
		/* the shell's exit 137, and a Python that exited 1 on its worker's death */
		in = (struct triage_input){ .exited = 1, .exit_code = i == 3 ? 1 : 137,
		    .oom_known = 1, .oom_kills = 0 };
		ev = NULL;
		assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_KILLED);
		assert_non_null(ev);
		assert_non_null(strstr(ev, "Killed"));
		assert_null(guess);
		in.exit_code = 1;	/* a script that went on after its child's SIGKILL */
		assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_KILLED);
		in.oom_kills = 1;
		ev = NULL;
		assert_int_equal(triage_classify_guess(&in, &ts, &ev, &guess), TRIAGE_CGROUP_OOM);
		assert_null(guess);
		assert_non_null(ev);	/* the counter decided; the line is the evidence */
		in = (struct triage_input){ .exited = 1, .exit_code = 1, .oom_kills = -1,
		    .oom_why = "ENOENT" };
		assert_int_equal(triage_classify_guess(&in, &ts, NULL, &guess), TRIAGE_CGROUP_OOM);
		assert_non_null(guess);
		assert_non_null(strstr(guess, "(ENOENT)"));
		free(guess);
		/* our own stop's SIGKILL printed it: not the run's failure */
		in = (struct triage_input){ .exited = 1, .exit_code = 137, .we_stopped = 1,
		    .oom_known = 1, .oom_kills = 0 };
		assert_int_not_equal(triage_classify(&in, &ts, NULL), TRIAGE_KILLED);
		assert_int_not_equal(triage_classify(&in, &ts, NULL), TRIAGE_CGROUP_OOM);
		triage_scan_free(&ts);
	}
}

/* The handbook prints the steps: the rule is there in words. */
/* loss.on_nan stop and completion.require are rows of the same table, with their evidence. */
static void
test_nan_stop_and_missing(void **state)
{
	struct triage_scan ts;
	struct triage_input in;
	const char *ev = NULL;

	(void)state;
	assert_int_equal(triage_scan_init(&ts), 0);
	feed(&ts, log_cuda_oom);
	/* Stopped by us for a NaN loss: nan_loss whatever the end or the log looked like. */
	in = (struct triage_input){ .exited = 0, .signo = SIGTERM, .we_stopped = 1, .oom_kills = -1,
	    .nan_stopped = "loss is nan at step 4 (attempt 1)" };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_NAN_LOSS);
	assert_string_equal(ev, "loss is nan at step 4 (attempt 1)");
	in = (struct triage_input){ .exited = 1, .exit_code = 0, .oom_kills = -1,
	    .nan_stopped = "loss is inf at step 9 (attempt 2)" };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_NAN_LOSS);
	in = (struct triage_input){ .status_lost = 1, .oom_kills = -1, .nan_stopped = "loss is nan" };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NAN_LOSS);

	/* Missing artifacts only turn a success into a failure. */
	in = (struct triage_input){ .exited = 1, .exit_code = 0, .done_required = 1, .done_seen = 1,
	    .oom_kills = -1, .missing = "missing: results/metrics.json" };
	assert_int_equal(triage_classify(&in, &ts, &ev), TRIAGE_MISSING_ARTIFACTS);
	assert_string_equal(ev, "missing: results/metrics.json");
	in.done_seen = 0;
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_NO_DONE_LINE);
	in = (struct triage_input){ .exited = 1, .exit_code = 1, .oom_kills = -1,
	    .missing = "missing: results/metrics.json" };
	assert_int_equal(triage_classify(&in, &ts, NULL), TRIAGE_CUDA_OOM);
	assert_false(triage_info(TRIAGE_MISSING_ARTIFACTS)->retryable);
	assert_false(triage_info(TRIAGE_NAN_LOSS)->retryable);
	triage_scan_free(&ts);
}

static void
test_steps_text(void **state)
{
	size_t i;
	int counter = 0, killed = 0, guess = 0, nan = 0, missing = 0;

	(void)state;
	for (i = 0; triage_step_text(i) != NULL; i++) {
		const char *t = triage_step_text(i);

		counter |= strstr(t, "counter") != NULL && strstr(t, "grew: cgroup_oom") != NULL;
		killed |= strstr(t, "unchanged: killed") != NULL;
		guess |= strstr(t, "unreadable: cgroup_oom") != NULL && strstr(t, "guess") != NULL;
		nan |= strstr(t, "loss.on_nan stop): nan_loss") != NULL;
		missing |= strstr(t, "completion.require") != NULL &&
		    strstr(t, "missing_artifacts") != NULL;
	}
	assert_true(i > 5);
	assert_true(counter && killed && guess && nan && missing);
}

/* ---- the stage's own cgroup, against fake trees ---- */

/* Fake files and directories under a test's root, with unit.h's helpers (no shell). */
static void
fake_file(const char *root, const char *rel, const char *s)
{
	char *path = xstrfmt("%s/%s", root, rel);

	unit_put(path, s);
	free(path);
}

static void
fake_dir(const char *root, const char *rel)
{
	char *path = xstrfmt("%s/%s", root, rel);

	assert_int_equal(fs_mkdirs(path, 0755), 0);
	free(path);
}

static void
rm_tree(const char *root)
{
	assert_int_equal(unit_rmrf(root), 0);
}

/* This machine's layout: v1 hierarchies beside an empty cgroup2 one, the memory one in a subgroup. */
static const char mountinfo_v1[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void
test_cgroup_v1(void **state)
{
	char root[] = "/tmp/wk-cgroup-XXXXXX", want[512], *dir, *why;
	long n;

	(void)state;
	assert_non_null(mkdtemp(root));
	fake_file(root, "proc/4242/cgroup", "9:name=systemd:/\n8:pids:/\n"
	    "4:memory:/process_api/e19a\n3:cpuset:/\n0::/\n");
	fake_file(root, "proc/self/mountinfo", mountinfo_v1);
	fake_file(root, "sys/fs/cgroup/memory/process_api/e19a/memory.oom_control",
	    "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
	fake_dir(root, "sys/fs/cgroup/unified");
	assert_int_equal(cgroup_memory_dir(root, 4242, &dir, &why), 0);
	assert_null(why);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/memory/process_api/e19a", root);
	assert_string_equal(dir, want);
	n = cgroup_oom_kill(dir, &why);
	assert_int_equal(n, 3);
	assert_null(why);
	free(dir);

	/* "memory" among other controllers of one hierarchy: "5:cpu,memory:/a" */
	fake_file(root, "proc/77/cgroup", "5:blkio,memory:/a\n0::/\n");
	fake_file(root, "proc/self/mountinfo",
	    "35 31 0:32 / /sys/fs/cgroup/blkio,memory rw - cgroup cgroup rw,blkio,memory\n");
	fake_dir(root, "sys/fs/cgroup/blkio,memory/a");
	assert_int_equal(cgroup_memory_dir(root, 77, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/blkio,memory/a", root);
	assert_string_equal(dir, want);
	free(dir);
	/* "memory_recursiveprot" in the options is not the controller */
	fake_file(root, "proc/self/mountinfo",
	    "35 31 0:32 / /sys/fs/cgroup/x rw - cgroup cgroup rw,memory_x\n");
	assert_int_equal(cgroup_memory_dir(root, 77, &dir, &why), WK_ERR_NOTFOUND);
	assert_null(dir);
	assert_non_null(strstr(why, "no cgroup v1 memory mount"));
	free(why);
	rm_tree(root);
}

static void
test_cgroup_v2_namespaced(void **state)
{
	char root[] = "/tmp/wk-cgroup-XXXXXX", want[512], *dir, *why;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* plain v2: mount root "/" */
	fake_file(root, "proc/10/cgroup", "0::/user.slice/run-1.scope\n");
	fake_file(root, "proc/self/mountinfo",
	    "25 21 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n");
	fake_file(root, "sys/fs/cgroup/user.slice/run-1.scope/memory.events",
	    "low 0\nhigh 0\nmax 9\noom 2\noom_kill 2\noom_group_kill 0\n");
	assert_int_equal(cgroup_memory_dir(root, 10, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/user.slice/run-1.scope", root);
	assert_string_equal(dir, want);
	assert_int_equal(cgroup_oom_kill(dir, &why), 2);
	free(dir);

	/* A container without a cgroup namespace: the mount shows only its own subtree. */
	fake_file(root, "proc/11/cgroup", "0::/docker/abc/train\n");
	fake_file(root, "proc/self/mountinfo",
	    "25 21 0:22 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n");
	fake_dir(root, "sys/fs/cgroup/train");
	assert_int_equal(cgroup_memory_dir(root, 11, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/train", root);
	assert_string_equal(dir, want);
	free(dir);

	/* A cgroup namespace: "0::/" is the container's root, whatever the mount root says. */
	fake_file(root, "proc/12/cgroup", "0::/\n");
	assert_int_equal(cgroup_memory_dir(root, 12, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup", root);
	assert_string_equal(dir, want);
	free(dir);
	/* ... and a subgroup of it, relative to the namespace root */
	fake_file(root, "proc/13/cgroup", "0::/train\n");
	assert_int_equal(cgroup_memory_dir(root, 13, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/train", root);
	assert_string_equal(dir, want);
	free(dir);

	/* A mount point with a space (mountinfo writes \040). */
	fake_file(root, "proc/self/mountinfo",
	    "25 21 0:22 / /mnt/cg\\040two rw - cgroup2 cgroup2 rw\n");
	fake_dir(root, "mnt/cg two/train");
	assert_int_equal(cgroup_memory_dir(root, 13, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/mnt/cg two/train", root);
	assert_string_equal(dir, want);
	free(dir);

	/* A hybrid host: the v1 memory hierarchy wins over the v2 line. */
	fake_file(root, "proc/14/cgroup", "4:memory:/m\n0::/u\n");
	fake_file(root, "proc/self/mountinfo", mountinfo_v1);
	fake_dir(root, "sys/fs/cgroup/memory/m");
	fake_dir(root, "sys/fs/cgroup/unified/u");
	assert_int_equal(cgroup_memory_dir(root, 14, &dir, &why), 0);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/memory/m", root);
	assert_string_equal(dir, want);
	free(dir);
	rm_tree(root);
}

static void
test_cgroup_missing(void **state)
{
	char root[] = "/tmp/wk-cgroup-XXXXXX", path[512], *dir, *why;

	(void)state;
	assert_non_null(mkdtemp(root));
	/* no /proc/PID/cgroup: the process is gone */
	assert_int_equal(cgroup_memory_dir(root, 999, &dir, &why), -1);
	assert_null(dir);
	assert_non_null(strstr(why, "/proc/999/cgroup: No such file or directory"));
	free(why);
	/* no memory line at all */
	fake_file(root, "proc/20/cgroup", "8:pids:/\n1:cpu:/\n");
	assert_int_equal(cgroup_memory_dir(root, 20, &dir, &why), WK_ERR_NOTFOUND);
	assert_non_null(strstr(why, "no memory controller line"));
	free(why);
	/* no mountinfo */
	fake_file(root, "proc/21/cgroup", "0::/a\n");
	assert_int_equal(cgroup_memory_dir(root, 21, &dir, &why), -1);
	assert_non_null(strstr(why, "mountinfo"));
	free(why);
	/* a mount, but the cgroup's directory is not under it */
	fake_file(root, "proc/self/mountinfo", "25 21 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	fake_dir(root, "sys/fs/cgroup");
	assert_int_equal(cgroup_memory_dir(root, 21, &dir, &why), WK_ERR_NOTFOUND);
	assert_non_null(strstr(why, "no directory for cgroup /a"));
	free(why);
	/* the directory without a counter file: the v1 file's error is said */
	fake_dir(root, "sys/fs/cgroup/a");
	assert_int_equal(cgroup_memory_dir(root, 21, &dir, &why), 0);
	assert_int_equal(cgroup_oom_kill(dir, &why), -1);
	assert_non_null(strstr(why, "/a/memory.oom_control: No such file or directory"));
	free(why);
	/* a memory.events without the line (old kernel), nor a v1 file */
	snprintf(path, sizeof(path), "%s/memory.events", dir);
	write_file(path, "low 0\nhigh 0\nmax 0\noom 0\n");
	assert_int_equal(cgroup_oom_kill(dir, &why), WK_ERR_PARSE);
	assert_non_null(why);
	free(why);
	/* an unreadable v2 file says its own error */
	if (geteuid() != 0) {
		assert_int_equal(chmod(path, 0), 0);
		assert_int_equal(cgroup_oom_kill(dir, &why), -1);
		assert_non_null(strstr(why, "memory.events: Permission denied"));
		free(why);
	}
	free(dir);
	rm_tree(root);
}

/* The attempt record: the cgroup onbox runs in before the launch, the stage's after it. */
static void
test_cgroup_mark_and_delta(void **state)
{
	char root[] = "/tmp/wk-cgroup-XXXXXX", empty[] = "/tmp/wk-cgroup-XXXXXX", want[512], *why;
	cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();

	(void)state;
	assert_non_null(mkdtemp(root));
	fake_file(root, "proc/self/cgroup", "0::/a\n");
	fake_file(root, "proc/55/cgroup", "0::/a\n");
	fake_file(root, "proc/56/cgroup", "0::/b\n");
	fake_file(root, "proc/self/mountinfo", "25 21 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	fake_file(root, "sys/fs/cgroup/a/memory.events", "oom 1\noom_kill 1\n");
	fake_file(root, "sys/fs/cgroup/b/memory.events", "oom 7\noom_kill 7\n");

	/* before the launch: onbox's own cgroup, which the stage inherits */
	assert_int_equal(cgroup_oom_mark(a, root, 0), 1);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/a", root);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "oom_cgroup")), want);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "oom_kill_base")), 1);
	/* the stage in the same cgroup: the earlier base stands (a kill in between counts) */
	fake_file(root, "sys/fs/cgroup/a/memory.events", "oom 2\noom_kill 2\n");
	assert_int_equal(cgroup_oom_mark(a, root, 55), 0);
	assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(a, "oom_kill_base")), 1);
	fake_file(root, "sys/fs/cgroup/a/memory.events", "oom 3\noom_kill 3\n");
	assert_int_equal(cgroup_oom_delta(a, &why), 2);
	assert_null(why);
	/* the stage already gone: what was read before stands */
	assert_int_equal(cgroup_oom_mark(a, root, 999), 0);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "oom_cgroup")), want);
	/* the stage moved itself elsewhere: its cgroup, its base */
	assert_int_equal(cgroup_oom_mark(a, root, 56), 1);
	snprintf(want, sizeof(want), "%s/sys/fs/cgroup/b", root);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(a, "oom_cgroup")), want);
	assert_int_equal(cgroup_oom_delta(a, &why), 0);
	/* a counter that went back: another cgroup of the same name, unknown */
	fake_file(root, "sys/fs/cgroup/b/memory.events", "oom 0\noom_kill 0\n");
	assert_int_equal(cgroup_oom_delta(a, &why), WK_ERR_STALE);
	assert_non_null(strstr(why, "went back from 7 to 0"));
	free(why);
	/* nothing readable: oom_why, and the delta says it */
	assert_non_null(mkdtemp(empty));
	assert_int_equal(cgroup_oom_mark(b, empty, 0), 1);
	assert_null(cJSON_GetObjectItem(b, "oom_kill_base"));
	assert_int_equal(cgroup_oom_delta(b, &why), WK_ERR_NOTFOUND);
	assert_non_null(strstr(why, "/proc/self/cgroup: No such file or directory"));
	free(why);
	/* an attempt from before this version: no cgroup recorded */
	assert_int_equal(cgroup_oom_delta(NULL, &why), WK_ERR_NOTFOUND);
	assert_non_null(strstr(why, "no cgroup recorded"));
	free(why);
	cJSON_Delete(a);
	cJSON_Delete(b);
	rm_tree(empty);
	rm_tree(root);
}

/* Saved hits read back give the same class and evidence; another table's are refused. */
static void
test_scan_save_load(void **state)
{
	struct triage_scan a, b;
	const char *ev_a = NULL, *ev_b = NULL;
	cJSON *doc;

	(void)state;
	assert_int_equal(triage_scan_init(&a), 0);
	assert_int_equal(triage_scan_init(&b), 0);
	feed(&a, log_cuda_oom);
	doc = triage_scan_save(&a);
	assert_int_equal(triage_scan_load(&b, doc), 0);
	assert_int_equal(triage_classify(&exit1, &b, &ev_b), triage_classify(&exit1, &a, &ev_a));
	assert_int_equal(triage_classify(&exit1, &b, &ev_b), TRIAGE_CUDA_OOM);
	assert_string_equal(ev_a, ev_b);
	assert_int_equal(a.crash_seen, b.crash_seen);
	assert_int_equal(a.traceback_seen, b.traceback_seen);
	/* Another rule table (digest) or garbage: refused, b unchanged. */
	cJSON_ReplaceItemInObject(doc, "rules", cJSON_CreateString("0000000000000000"));
	assert_int_not_equal(triage_scan_load(&b, doc), 0);
	assert_int_equal(triage_classify(&exit1, &b, &ev_b), TRIAGE_CUDA_OOM);
	assert_int_not_equal(triage_scan_load(&b, NULL), 0);
	cJSON_Delete(doc);
	triage_scan_free(&a);
	triage_scan_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes_from_logs),
		cmocka_unit_test(test_evidence_is_specific_line),
		cmocka_unit_test(test_healthy_log),
		cmocka_unit_test(test_priority),
		cmocka_unit_test(test_exit_rules),
		cmocka_unit_test(test_evidence_sanitized_and_capped),
		cmocka_unit_test(test_class_table),
		cmocka_unit_test(test_nan_negatives),
		cmocka_unit_test(test_oom_kill_count),
		cmocka_unit_test(test_scan_save_load),
		cmocka_unit_test(test_sigkill_counter_decides),
		cmocka_unit_test(test_sigkill_log_lines),
		cmocka_unit_test(test_steps_text),
		cmocka_unit_test(test_nan_stop_and_missing),
		cmocka_unit_test(test_cgroup_v1),
		cmocka_unit_test(test_cgroup_v2_namespaced),
		cmocka_unit_test(test_cgroup_missing),
		cmocka_unit_test(test_cgroup_mark_and_delta),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
