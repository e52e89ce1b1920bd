/*
 * triage.c: what killed a stage, and what a person should do about it (see triage.h).
 *
 * Everything a reader might want to change is data: triage_classes[] holds
 * each class's name, title, remediation and retry policy; triage_rules[]
 * holds the log signatures in priority order.  The order of the rules is the
 * point: a CUDA OOM or an NCCL timeout surfaces as a Python traceback (and
 * often as a RuntimeError), so the specific signatures come first and the
 * generic code-error ones last; when several rules matched during an
 * attempt, the first in table order decides, whatever line came first.
 *
 * The scan state matches every line once against all rules through one
 * patset and keeps the first matching line per rule as evidence.  The
 * classifier then weighs that against how the process ended, as a third
 * table, triage_steps[], walked in order: how the process ended outranks
 * the log.  A SIGKILL we did not send is decided by the oom_kill counter of
 * the stage's own cgroup: grew, cgroup_oom; read and unchanged, killed; not
 * readable, a log rule when one explains it, else cgroup_oom as a guess
 * (triage_classify_guess says why).  A shell's "Killed" line is evidence of
 * a SIGKILL, never of its cause (TRIAGE_SIGKILL_EVIDENCE).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "err.h"
#include "log.h"
#include "logscan.h"
#include "pattern.h"
#include "triage.h"
#include "xmalloc.h"

#define TRIAGE_EVIDENCE_MAX	512
#define TRIAGE_TRACEBACK_RE	"Traceback \\(most recent call last\\)"

const struct triage_class_info triage_classes[TRIAGE_NCLASSES] = {
	[TRIAGE_NONE] = { TRIAGE_NONE, "none", "Succeeded",
	    "Nothing to do.", 0, 0 },
	[TRIAGE_DISK_FULL] = { TRIAGE_DISK_FULL, "disk_full", "Disk full",
	    "Free space on the workdir's filesystem (check df -h and df -i; inodes "
	    "run out first with many small files), prune old or periodic "
	    "checkpoints, then resume.", 0, 0 },
	[TRIAGE_CGROUP_OOM] = { TRIAGE_CGROUP_OOM, "cgroup_oom",
	    "Out of host memory (cgroup OOM kill)",
	    "Size dataloader workers times the tensors each keeps in RAM to the "
	    "cgroup's memory.max, not to the CPU count: lower num_workers or "
	    "prefetch, or raise the memory limit, then resume.", 0, 0 },
	[TRIAGE_CUDA_OOM] = { TRIAGE_CUDA_OOM, "cuda_oom", "CUDA out of memory",
	    "Lower the batch size (or use gradient accumulation), or stop the "
	    "other job using the GPU (check nvidia-smi), then resume.", 0, 0 },
	[TRIAGE_HBM_OOM] = { TRIAGE_HBM_OOM, "hbm_oom",
	    "Accelerator HBM exhausted (XLA RESOURCE_EXHAUSTED)",
	    "Lower the per-device batch size or shard the model and optimizer "
	    "state over more devices (read the 'Largest program allocations' "
	    "list), then resume.", 0, 0 },
	[TRIAGE_NODE_LOST] = { TRIAGE_NODE_LOST, "node_lost", "A node was lost",
	    "Infrastructure, not the run: relaunch with the same run id and "
	    "output root so it resumes from its checkpoint.", 1, 1 },
	[TRIAGE_NCCL_TIMEOUT] = { TRIAGE_NCCL_TIMEOUT, "nccl_timeout",
	    "NCCL collective timeout or error",
	    "Relaunch; if it recurs, check the interconnect (NCCL_DEBUG=INFO) and "
	    "look for a straggler or crashed rank.", 1, 0 },
	[TRIAGE_BAD_ACCELERATOR] = { TRIAGE_BAD_ACCELERATOR, "bad_accelerator",
	    "Accelerator missing, busy or faulty",
	    "The device is bad or held by another process: free it (nvidia-smi, "
	    "or the process holding /dev/accel*) or move the run to another "
	    "node, then relaunch.", 1, 0 },
	[TRIAGE_NAN_LOSS] = { TRIAGE_NAN_LOSS, "nan_loss", "Loss became NaN or Inf",
	    "Numerical instability, not infrastructure, so do not just relaunch: "
	    "lower the learning rate or add warmup or clipping, and check the "
	    "data near that step.", 0, 0 },
	[TRIAGE_CODE_ERROR] = { TRIAGE_CODE_ERROR, "code_error",
	    "Error in the code or its config",
	    "Fix the code or config named in the traceback; do not retry "
	    "unchanged.", 0, 0 },
	[TRIAGE_PREEMPTED] = { TRIAGE_PREEMPTED, "preempted",
	    "Preempted (SIGTERM from outside)",
	    "Relaunch from the newest complete checkpoint (one with its "
	    "metadata.json).", 1, 1 },
	[TRIAGE_KILLED] = { TRIAGE_KILLED, "killed",
	    "Killed by a signal we did not send",
	    "A SIGKILL that was not an OOM kill in the stage's cgroup (its oom_kill "
	    "counter did not move): a person, the host's OOM killer outside this "
	    "container, or the platform.  Relaunch from the newest complete "
	    "checkpoint (retried within the restart budget); if it recurs, find "
	    "who: dmesg, the host's logs, who was logged in.", 1, 0 },
	[TRIAGE_TIMEOUT] = { TRIAGE_TIMEOUT, "timeout", "Stage timed out",
	    "The stage ran past its timeout_s: check whether it hung (last log "
	    "lines, GPU use) or just needs a longer timeout_s.", 0, 0 },
	[TRIAGE_NO_DONE_LINE] = { TRIAGE_NO_DONE_LINE, "no_done_line",
	    "Exited 0 without its done line",
	    "The command exited 0 but the done_when line never appeared, so it "
	    "did not finish its work: read the log's end, check done_when against "
	    "what the program prints, then rerun.", 0, 0 },
	[TRIAGE_LOST] = { TRIAGE_LOST, "lost", "Exit status lost",
	    "The stage's wrapper died, so how it ended is unknown: check its "
	    "outputs and log, then relaunch; it resumes at the first missing "
	    "marker.", 1, 0 },
	[TRIAGE_REBOOT] = { TRIAGE_REBOOT, "reboot", "The box rebooted",
	    "The box rebooted under the stage: check that the disk and GPUs came "
	    "back (df -h, nvidia-smi), then relaunch; it resumes at the first "
	    "missing marker.", 1, 1 },
	[TRIAGE_MISSING_ARTIFACTS] = { TRIAGE_MISSING_ARTIFACTS, "missing_artifacts",
	    "Finished without its required artifacts",
	    "The last stage ended well, but what completion.require names is "
	    "missing, empty, or the newest complete checkpoint is short of the "
	    "progress total: read the evidence, check that the code writes those "
	    "files (and its final checkpoint), then rerun.", 0, 0 },
	[TRIAGE_CLUSTER_FAILURE] = { TRIAGE_CLUSTER_FAILURE, "cluster_failure",
	    "The cluster failed the job",
	    "The cluster manager reports the job failed (a worker lost, resources the "
	    "autoscaler cannot satisfy) and its log names no cause in the code: "
	    "resubmit the job (retried within the restart budget); if it recurs, "
	    "look at the cluster with its owner, and never restart or change the "
	    "cluster without the owner's consent.", 1, 0 },
	[TRIAGE_UNKNOWN] = { TRIAGE_UNKNOWN, "unknown", "Failed, cause not recognised",
	    "Nothing in the log matched a known failure: read the last lines of "
	    "the stage's log before relaunching.", 0, 0 },
};

/* Priority order: the first rule that matched during the attempt decides. */
const struct triage_rule triage_rules[] = {
	{ TRIAGE_DISK_FULL, "No space left on device", 1 },
	{ TRIAGE_DISK_FULL, "basic_ios::clear: iostream error", 1 },
	{ TRIAGE_DISK_FULL, "unexpected pos \\d+ vs \\d+", 1 },
	{ TRIAGE_DISK_FULL, "Disk quota exceeded", 1 },

	{ TRIAGE_CUDA_OOM, "CUDA out of memory", 1 },
	{ TRIAGE_CUDA_OOM, "torch\\.(cuda\\.)?OutOfMemoryError", 1 },
	{ TRIAGE_CUDA_OOM, "CUDA error: out of memory", 1 },
	{ TRIAGE_CUDA_OOM, "CUBLAS_STATUS_ALLOC_FAILED", 1 },

	/* Within a class, the rule whose line makes the best evidence comes first. */
	{ TRIAGE_HBM_OOM, "RESOURCE_EXHAUSTED", 1 },
	{ TRIAGE_HBM_OOM, "Program hbm requirement", 1 },
	{ TRIAGE_HBM_OOM, "Largest program allocations in hbm", 1 },

	/*
	 * Evidence of a SIGKILL, not of its cause: sh and bash print "Killed"
	 * for any SIGKILL of a child.  The counter decides (triage_steps[]).
	 */
	{ TRIAGE_CGROUP_OOM, "DataLoader worker \\(pid \\d+\\) is killed by signal: Killed",
	    TRIAGE_SIGKILL_EVIDENCE },
	{ TRIAGE_CGROUP_OOM, "^\\s*Killed\\s*$", TRIAGE_SIGKILL_EVIDENCE },
	/*
	 * bash reporting its child's SIGKILL: "bash: line 1:  4242 Killed  python
	 * train.py".  Not "^\\S+: ...": a rule that can start at any byte takes
	 * the start-byte filter away from the whole joined set (3x slower).
	 */
	{ TRIAGE_CGROUP_OOM, ": line \\d+: +\\d+ Killed\\b", TRIAGE_SIGKILL_EVIDENCE },

	{ TRIAGE_NODE_LOST, "OwnerDiedError", 1 },
	{ TRIAGE_NODE_LOST, "NodeDiedError", 1 },
	{ TRIAGE_NODE_LOST, "dead node", 1 },
	{ TRIAGE_NODE_LOST, "node death", 1 },
	{ TRIAGE_NODE_LOST, "(?i)node .* (died|was lost)", 1 },

	{ TRIAGE_NCCL_TIMEOUT, "NCCL.*(timeout|timed out)", 1 },
	{ TRIAGE_NCCL_TIMEOUT, "Watchdog caught collective operation timeout", 1 },
	{ TRIAGE_NCCL_TIMEOUT, "NCCL error", 1 },
	{ TRIAGE_NCCL_TIMEOUT, "NCCL communicator was aborted", 1 },

	{ TRIAGE_BAD_ACCELERATOR, "No accelerator found", 1 },
	{ TRIAGE_BAD_ACCELERATOR, "FAILED_PRECONDITION", 1 },
	{ TRIAGE_BAD_ACCELERATOR, "Device or resource busy", 1 },
	{ TRIAGE_BAD_ACCELERATOR, "CUDA-capable device\\(s\\) is/are busy or unavailable", 1 },
	{ TRIAGE_BAD_ACCELERATOR, "no CUDA-capable device is detected", 1 },
	{ TRIAGE_BAD_ACCELERATOR, "uncorrectable ECC error", 1 },

	/*
	 * "loss=nan", "'loss': nan", "Loss is nan", "val_loss: -inf".  Not
	 * "loss: 2.3, grad_norm: nan" (an fp16 scaler skipping a step) nor
	 * "loss_scale: inf": a separator may not come between.  An alert, not death.
	 */
	{ TRIAGE_NAN_LOSS,
	    "(?i)(?<![a-z0-9])loss\\b[^,;|\\n]{0,40}?[=: ]\\s*[-+]?(nan|inf)\\b", 0 },

	{ TRIAGE_CODE_ERROR, "\\b(KeyError|AttributeError|NameError|ImportError|"
	    "ModuleNotFoundError|SyntaxError|IndentationError|TypeError|ValueError|"
	    "AssertionError|ZeroDivisionError|IndexError|FileNotFoundError)\\b", 1 },
	/* Then any traceback at all.  Not anchored: torchrun prefixes "[rank0]: ". */
	{ TRIAGE_CODE_ERROR, TRIAGE_TRACEBACK_RE, 1 },

	/*
	 * Last, below any cause in the code: Ray's autoscaler (seeds 000/001:
	 * "autoscaler unsatisfied resources"), a warning many healthy jobs print.
	 */
	{ TRIAGE_CLUSTER_FAILURE, TRIAGE_AUTOSCALER_RE, 0 },
};

#define TRIAGE_NRULES	(sizeof(triage_rules) / sizeof(triage_rules[0]))

const size_t triage_nrules = TRIAGE_NRULES;

/* Out-of-range values get the "unknown" entry, so callers never see NULL. */
const struct triage_class_info *
triage_info(enum triage_class cls)
{
	if ((int)cls < 0 || cls >= TRIAGE_NCLASSES)
		cls = TRIAGE_UNKNOWN;
	return &triage_classes[cls];
}

enum triage_class
triage_by_name(const char *name)
{
	size_t i;

	if (name == NULL)
		return TRIAGE_NCLASSES;
	for (i = 0; i < TRIAGE_NCLASSES; i++)
		if (strcmp(triage_classes[i].name, name) == 0)
			return triage_classes[i].cls;
	return TRIAGE_NCLASSES;
}

/* An FNV-1a digest of the rule table, so saved hits are read back only by the same table. */
static const char *
triage_rules_digest(void)
{
	static char hex[17];
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	const char *p;

	if (hex[0] != '\0')
		return hex;
	for (i = 0; i < TRIAGE_NRULES; i++) {
		for (p = triage_rules[i].pattern; *p != '\0'; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ULL;
		h = (h ^ (unsigned char)(triage_rules[i].cls + 1)) * 1099511628211ULL;
		h = (h ^ (unsigned char)(triage_rules[i].crash + 1)) * 1099511628211ULL;
	}
	snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
	return hex;
}

int
triage_scan_init(struct triage_scan *ts)
{
	const char *res[TRIAGE_NRULES];
	char errbuf[256];
	size_t i;
	int r;

	memset(ts, 0, sizeof(*ts));
	for (i = 0; i < TRIAGE_NRULES; i++)
		res[i] = triage_rules[i].pattern;
	if ((r = patset_compile(res, TRIAGE_NRULES, &ts->set, errbuf, sizeof(errbuf))) != 0) {
		log_error("triage rules: %s", errbuf);
		goto out;
	}
	ts->hits = xcalloc(TRIAGE_NRULES, 1);
	ts->first_line = xcalloc(TRIAGE_NRULES, sizeof(*ts->first_line));
 out:
	return r;
}

void
triage_scan_line(struct triage_scan *ts, const char *line, size_t len)
{
	unsigned char hit[TRIAGE_NRULES];
	size_t i;

	/* A matching error (match limit) in one rule still leaves the others' hits. */
	if (ts->set == NULL || patset_match(ts->set, line, len, hit, 0) == 0)
		return;
	for (i = 0; i < TRIAGE_NRULES; i++) {
		if (!hit[i] || ts->hits[i])
			continue;
		ts->hits[i] = 1;
		ts->first_line[i] = linering_sanitize(line, len, TRIAGE_EVIDENCE_MAX);
		if (triage_rules[i].crash)
			ts->crash_seen = 1;
		if (strcmp(triage_rules[i].pattern, TRIAGE_TRACEBACK_RE) == 0)
			ts->traceback_seen = 1;
	}
}

void
triage_scan_reset(struct triage_scan *ts)
{
	size_t i;

	if (ts->hits == NULL)
		return;
	for (i = 0; i < TRIAGE_NRULES; i++) {
		free(ts->first_line[i]);
		ts->first_line[i] = NULL;
	}
	memset(ts->hits, 0, TRIAGE_NRULES);
	ts->crash_seen = ts->traceback_seen = 0;
}

cJSON *
triage_scan_save(const struct triage_scan *ts)
{
	cJSON *doc = cJSON_CreateObject(), *hits = cJSON_AddObjectToObject(doc, "hits");
	char key[16];
	size_t i;

	for (i = 0; ts->hits != NULL && i < TRIAGE_NRULES; i++) {
		if (!ts->hits[i])
			continue;
		snprintf(key, sizeof(key), "%zu", i);
		cJSON_AddStringToObject(hits, key, ts->first_line[i] != NULL ? ts->first_line[i] : "");
	}
	cJSON_AddStringToObject(doc, "rules", triage_rules_digest());
	return doc;
}

int
triage_scan_load(struct triage_scan *ts, const cJSON *doc)
{
	const cJSON *hits = cJSON_GetObjectItem(doc, "hits"), *it;
	const char *digest = cJSON_GetStringValue(cJSON_GetObjectItem(doc, "rules"));
	char *end;
	unsigned long i;

	/* Rule numbers mean something only for the same rule table. */
	if (ts->hits == NULL || !cJSON_IsObject(hits) || digest == NULL ||
	    strcmp(digest, triage_rules_digest()) != 0)
		return WK_ERR_PARSE;
	triage_scan_reset(ts);
	cJSON_ArrayForEach(it, hits) {
		i = strtoul(it->string, &end, 10);
		if (*end != '\0' || i >= TRIAGE_NRULES || !cJSON_IsString(it))
			continue;
		ts->hits[i] = 1;
		ts->first_line[i] = linering_sanitize(it->valuestring, strlen(it->valuestring),
		    TRIAGE_EVIDENCE_MAX);
		if (triage_rules[i].crash)
			ts->crash_seen = 1;
		if (strcmp(triage_rules[i].pattern, TRIAGE_TRACEBACK_RE) == 0)
			ts->traceback_seen = 1;
	}
	return 0;
}

void
triage_scan_free(struct triage_scan *ts)
{
	triage_scan_reset(ts);
	patset_free(ts->set);
	free(ts->hits);
	free(ts->first_line);
	memset(ts, 0, sizeof(*ts));
}

static int
triage_killed_by(const struct triage_input *in, int signo)
{
	return in->exited ? in->exit_code == 128 + signo : in->signo == signo;
}

/*
 * The classifier's steps.  Each returns a class, or TRIAGE_NCLASSES for "not
 * decided here"; *ev is its evidence: the log line that decided it (a SIGKILL line
 * for the counter steps), the NaN alert's text, or what completion.require misses.
 */
typedef enum triage_class (*triage_step_fn)(const struct triage_input *,
    const struct triage_scan *, const char **);

static enum triage_class
triage_step_lost(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	(void)ev;
	if (!in->status_lost)
		return TRIAGE_NCLASSES;
	return in->rebooted ? TRIAGE_REBOOT : TRIAGE_LOST;
}

static enum triage_class
triage_step_nan_stop(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	if (in->nan_stopped == NULL)
		return TRIAGE_NCLASSES;
	*ev = in->nan_stopped;
	return TRIAGE_NAN_LOSS;
}

static enum triage_class
triage_step_exit0(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	if (!in->exited || in->exit_code != 0)
		return TRIAGE_NCLASSES;
	if (in->done_required && !in->done_seen)
		return TRIAGE_NO_DONE_LINE;
	if (in->missing != NULL) {
		*ev = in->missing;
		return TRIAGE_MISSING_ARTIFACTS;
	}
	return TRIAGE_NONE;
}

static enum triage_class
triage_step_timeout(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	(void)ev;
	return in->we_timed_out ? TRIAGE_TIMEOUT : TRIAGE_NCLASSES;
}

/* The first line that showed a SIGKILL (a shell's "Killed"), or NULL. */
static const char *
triage_sigkill_line(const struct triage_scan *ts)
{
	size_t i;

	for (i = 0; ts != NULL && ts->hits != NULL && i < TRIAGE_NRULES; i++)
		if (ts->hits[i] && triage_rules[i].crash == TRIAGE_SIGKILL_EVIDENCE)
			return ts->first_line[i];
	return NULL;
}

static enum triage_class
triage_step_oom_kill(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	if (in->oom_kills <= 0)
		return TRIAGE_NCLASSES;
	*ev = triage_sigkill_line(ts);
	return TRIAGE_CGROUP_OOM;
}

static enum triage_class
triage_step_sigterm(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	(void)ev;
	if (!triage_killed_by(in, SIGTERM) || in->we_stopped)
		return TRIAGE_NCLASSES;
	return TRIAGE_PREEMPTED;
}

/* The stage cgroup's counter was read at launch and at the end and did not move. */
static int
triage_oom_unchanged(const struct triage_input *in)
{
	return in->oom_known && in->oom_kills == 0;
}

/*
 * A foreign SIGKILL with the counter read and unchanged was no OOM kill in
 * the stage's cgroup, whatever the log said before it (a traceback logged
 * and caught earlier did not kill it).
 */
static enum triage_class
triage_step_sigkill_counted(const struct triage_input *in, const struct triage_scan *ts,
    const char **ev)
{
	if (!triage_killed_by(in, SIGKILL) || in->we_stopped || !triage_oom_unchanged(in))
		return TRIAGE_NCLASSES;
	*ev = triage_sigkill_line(ts);	/* the shell's "Killed" line, when there is one */
	return TRIAGE_KILLED;
}

static enum triage_class
triage_step_rules(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	size_t i;

	for (i = 0; ts != NULL && ts->hits != NULL && i < TRIAGE_NRULES; i++) {
		if (!ts->hits[i])
			continue;
		/* A SIGKILL we sent ourselves says nothing about the run. */
		if (triage_rules[i].crash == TRIAGE_SIGKILL_EVIDENCE && in->we_stopped)
			continue;
		*ev = ts->first_line[i];
		if (triage_rules[i].crash == TRIAGE_SIGKILL_EVIDENCE && triage_oom_unchanged(in))
			return TRIAGE_KILLED;
		return triage_rules[i].cls;
	}
	return TRIAGE_NCLASSES;
}

static enum triage_class
triage_step_sigkill(const struct triage_input *in, const struct triage_scan *ts, const char **ev)
{
	(void)ts;
	(void)ev;
	if (!triage_killed_by(in, SIGKILL) || in->we_stopped)
		return TRIAGE_NCLASSES;
	return TRIAGE_CGROUP_OOM;
}

/*
 * In order; the first step that names a class wins, and none naming one
 * means "unknown".
 */
static const struct triage_step {
	const char	*when;		/* the rule, for people (the handbook prints it) */
	triage_step_fn	 apply;
} triage_steps[] = {
	{ "onbox stopped it because the loss went NaN or Inf (loss.on_nan stop): nan_loss, "
	    "however it ended", triage_step_nan_stop },
	{ "the exit status was lost: reboot if the box rebooted, else lost", triage_step_lost },
	{ "it exited 0: no_done_line if done_when never appeared; missing_artifacts if it is the "
	    "chain's last stage and an entry of completion.require is not there (or "
	    "{final_checkpoint} is short of the total); else none", triage_step_exit0 },
	{ "our timeout_s killed it: timeout", triage_step_timeout },
	{ "the oom_kill counter of the stage's own cgroup (resolved at launch) grew: cgroup_oom",
	    triage_step_oom_kill },
	{ "SIGTERM or exit 143 we did not send: preempted", triage_step_sigterm },
	{ "SIGKILL or exit 137 we did not send (a shell's exit 137 for its killed child too), the "
	    "counter readable and unchanged: killed, whatever the log showed before",
	    triage_step_sigkill_counted },
	{ "a log rule matched: the first matching rule in table order; a shell's \"Killed\" line "
	    "and a DataLoader worker killed by signal are evidence of a SIGKILL, not of its cause: "
	    "killed when the counter is readable and unchanged, else cgroup_oom",
	    triage_step_rules },
	{ "SIGKILL or exit 137 we did not send, the counter unreadable: cgroup_oom, marked as a "
	    "guess (\"guess\" says why): most foreign SIGKILLs are OOM kills", triage_step_sigkill },
};

#define TRIAGE_NSTEPS	(sizeof(triage_steps) / sizeof(triage_steps[0]))

const char *
triage_step_text(size_t i)
{
	return i < TRIAGE_NSTEPS ? triage_steps[i].when : NULL;
}

enum triage_class
triage_classify_guess(const struct triage_input *in, const struct triage_scan *ts,
    const char **evidence, char **guess)
{
	enum triage_class cls = TRIAGE_NCLASSES;
	const char *ev = NULL;
	size_t i;

	for (i = 0; i < TRIAGE_NSTEPS; i++)
		if ((cls = triage_steps[i].apply(in, ts, &ev)) != TRIAGE_NCLASSES)
			break;
	if (cls == TRIAGE_NCLASSES)
		cls = TRIAGE_UNKNOWN;
	if (evidence != NULL)
		*evidence = ev;
	/* cgroup_oom without the counter having grown: a SIGKILL whose cause nobody could read. */
	if (guess != NULL)
		*guess = cls == TRIAGE_CGROUP_OOM && in->oom_kills <= 0 ?
		    xstrfmt("no oom_kill counter readable for the stage's cgroup (%s): called "
		    "cgroup_oom because most foreign SIGKILLs are OOM kills",
		    in->oom_why != NULL ? in->oom_why : "not recorded") : NULL;
	return cls;
}

enum triage_class
triage_classify(const struct triage_input *in, const struct triage_scan *ts,
    const char **evidence)
{
	return triage_classify_guess(in, ts, evidence, NULL);
}
