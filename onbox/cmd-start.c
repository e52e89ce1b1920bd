/*
 * cmd-start.c: `onbox start`: start `onbox run` detached with the configured
 * primitive, refuse when one already runs, and say how to look at it.
 *
 * The run's lock is the truth about "already running": `start` checks it
 * first, and a second `onbox run` that slipped past the check (two starts at
 * once) finds the lock taken and exits 75 without touching anything.  After
 * starting, `start` waits (bounded) until the new onbox holds the lock, so
 * "started" is only printed for something that is really running.
 *
 * The pid it prints is one an agent may signal, so it is never a guess: with
 * nohup and job it is our own child (spawn_argv forks and execs the onbox
 * itself, setsid in between: no wrapper process), with tmux the onbox_pid
 * the new onbox wrote to state.json, taken only once it differs from the one
 * there before the start (a killed onbox's) and names a live process.
 * Without that, "pid unknown yet": a 0 would make `kill 0` signal the
 * caller's whole process group.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "err.h"
#include "fsutil.h"
#include "jsonfile.h"
#include "layout.h"
#include "log.h"
#include "monotime.h"
#include "notify.h"
#include "onbox.h"
#include "proc.h"
#include "slurmstart.h"
#include "spawn.h"
#include "stop.h"
#include "sshq.h"
#include "xmalloc.h"

#define START_WAIT_MS	10000

struct start_ctx {
	struct wk_config *cfg;
	char	*self;		/* this onbox binary, absolute */
	char	*cfgpath;	/* the config, absolute */
	char	*lockp;
	pid_t	 child;		/* nohup: the detached onbox; tmux: 0 */
	long	 oldpid;	/* state.json's onbox_pid before starting */
	long	 pid;		/* the started onbox, 0 unknown */
	int	 allow_dirty;	/* --allow-dirty: passed on to `onbox run` */
};

/*
 * A tmux server that already runs starts new sessions in ITS environment, not
 * the caller's: `conda activate x; onbox start` would run the stages with
 * the server's python.  So the caller's environment is carried into the
 * session's command as `env NAME=value ...`, except names that look like
 * secrets and the variables the config's notify[] names (url_env,
 * token_env): they would show in the process list.  Also the terminal's own.
 */
static const char *const start_env_skip[] = {
	"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "WEBHOOK", "AUTH", "COOKIE",
};
static const char *const start_env_drop[] = {
	"TMUX", "TMUX_PANE", "TERM", "SHLVL", "PWD", "OLDPWD", "_", "SSH_TTY", "SSH_CONNECTION",
	"SSH_CLIENT", "SSH_AUTH_SOCK", "DISPLAY", "COLUMNS", "LINES",
};

static int
start_env_keep(const char *entry)
{
	size_t n = strcspn(entry, "="), i;
	char name[256];

	if (entry[n] != '=' || n == 0 || n >= sizeof(name))
		return 0;
	memcpy(name, entry, n);
	name[n] = '\0';
	for (i = 0; i < n; i++)
		if (!(name[i] == '_' || (name[i] >= 'A' && name[i] <= 'Z') ||
		    (name[i] >= 'a' && name[i] <= 'z') || (i > 0 && name[i] >= '0' && name[i] <= '9')))
			return 0;
	for (i = 0; i < sizeof(start_env_drop) / sizeof(start_env_drop[0]); i++)
		if (strcmp(name, start_env_drop[i]) == 0)
			return 0;
	for (i = 0; i < n; i++)
		name[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	for (i = 0; i < sizeof(start_env_skip) / sizeof(start_env_skip[0]); i++)
		if (strstr(name, start_env_skip[i]) != NULL)
			return 0;
	return 1;
}

/* 1 when entry is NAME=... for one of names (the config's url_env/token_env: secrets). */
static int
start_env_named(const char *entry, char **names, size_t n)
{
	size_t len = strcspn(entry, "="), i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len && strncmp(entry, names[i], len) == 0)
			return 1;
	return 0;
}

static void
start_env(struct buf *cmd, const struct wk_config *cfg)
{
	extern char **environ;
	char **e, **names;
	size_t n, i;

	notify_secret_names(cfg, 0, &names, &n);
	buf_puts(cmd, "env ");
	for (e = environ; *e != NULL; e++) {
		if (!start_env_keep(*e) || start_env_named(*e, names, n))
			continue;
		sshq_append(cmd, *e);
		buf_putc(cmd, ' ');
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* 1 when an executable name is on the PATH (as execvp would find it). */
static int
start_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	char *f;
	int ok = 0;

	if (path == NULL || *path == '\0')
		path = "/usr/bin:/bin";
	for (p = path; !ok; p = e + 1) {
		e = strchr(p, ':');
		if (e == NULL)
			e = p + strlen(p);
		f = e == p ? xstrfmt("./%s", name) : xstrfmt("%.*s/%s", (int)(e - p), p, name);
		ok = access(f, X_OK) == 0;
		free(f);
		if (*e == '\0')
			break;
	}
	return ok;
}

/* 1 when the tmux session exists. */
static int
tmux_has(const char *session)
{
	char *target = xstrfmt("=%s", session);
	char *argv[] = { "tmux", "has-session", "-t", target, NULL };
	struct spawn_opts o;
	int status = 1;
	pid_t pid;

	spawn_opts_init(&o);
	pid = spawn_argv(argv, &o);
	if (pid > 0)
		spawn_wait(pid, &status);
	free(target);
	return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int
start_tmux(struct start_ctx *s)
{
	struct buf cmd = BUF_INIT;
	struct spawn_opts o;
	char *argv[9];
	int status = 0, rc = 0;
	pid_t pid;

	if (tmux_has(s->cfg->session)) {
		log_error("tmux session \"%s\" exists but no onbox holds run %s: look at it with "
		    "`tmux attach -t %s`, or remove it with `tmux kill-session -t %s`",
		    s->cfg->session, s->cfg->run, s->cfg->session, s->cfg->session);
		return WK_EX_TEMPFAIL;
	}
	buf_puts(&cmd, "exec ");
	start_env(&cmd, s->cfg);
	sshq_append(&cmd, s->self);
	buf_puts(&cmd, " run -c ");
	sshq_append(&cmd, s->cfgpath);
	if (s->allow_dirty)
		buf_puts(&cmd, " --allow-dirty");
	argv[0] = "tmux";
	argv[1] = "new-session";
	argv[2] = "-d";
	argv[3] = "-s";
	argv[4] = s->cfg->session;
	argv[5] = "-c";
	argv[6] = s->cfg->workdir;
	argv[7] = cmd.data;
	argv[8] = NULL;
	spawn_opts_init(&o);
	o.fd_err = SPAWN_INHERIT;
	pid = spawn_argv(argv, &o);
	if (pid < 0) {
		log_error("cannot run tmux: %s; install tmux, or set \"detach\": \"nohup\" in %s",
		    wk_strerror(WK_ERR_SYSTEM), s->cfg->path);
		rc = WK_EX_CONFIG;
	} else if (spawn_wait(pid, &status) != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_error("tmux new-session -s %s failed", s->cfg->session);
		rc = WK_EX_SOFTWARE;
	}
	buf_free(&cmd);
	return rc;
}

static int
start_nohup(struct start_ctx *s)
{
	char *out = layout_path(s->cfg->workdir, "onbox.out");
	char *argv[] = { s->self, "run", "-c", s->cfgpath, s->allow_dirty ? "--allow-dirty" : NULL,
		NULL };
	struct spawn_opts o;
	int fd, rc = 0;

	fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		log_error("cannot open %s: %s", out, wk_strerror(WK_ERR_SYSTEM));
		free(out);
		return WK_EX_IOERR;
	}
	spawn_opts_init(&o);
	o.cwd = s->cfg->workdir;
	o.fd_out = fd;
	o.fd_err = SPAWN_STDOUT;
	o.new_session = 1;	/* nohup + setsid: no terminal, no SIGHUP */
	s->child = spawn_argv(argv, &o);
	if (s->child < 0) {
		log_error("cannot start %s: %s", s->self, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_SOFTWARE;
	}
	close(fd);
	free(out);
	return rc;
}

static const struct {
	const char	*name;
	int		(*start)(struct start_ctx *);
	const char	*watch;	/* how to look at it; %s = session or workdir */
} start_table[] = {
	{ "tmux", start_tmux, "tmux attach -t %s" },
	{ "nohup", start_nohup, "tail -f %s/.watchkeeper/onbox.out" },
	/* job: onbox itself supervises the cluster's jobs, so it outlives the caller like nohup */
	{ "job", start_nohup, "tail -f %s/.watchkeeper/onbox.out" },
};

/* The onbox pid and status from state.json, for messages. */
static void
start_state(const struct wk_config *cfg, long *pid, char *status, size_t len)
{
	char *p = layout_path(cfg->workdir, "state.json");
	cJSON *doc = NULL;

	*pid = 0;
	snprintf(status, len, "unknown");
	if (jsonfile_load(p, &doc) == 0) {
		*pid = json_long(doc, "onbox_pid", 0);
		snprintf(status, len, "%s", json_str(doc, "status", "unknown"));
	}
	cJSON_Delete(doc);
	free(p);
}

/* 1 when pid names a live process (a zombie too: it is ours to reap or tmux's). */
static int
start_alive(long pid)
{
	return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/*
 * Wait until the new onbox holds the lock and state.json names it, or it has
 * already finished; sets s->pid; 0 it runs, 1 it ran the chain and has ended
 * already (exit 0), else an exit code.  state.json too, not the lock alone:
 * `onbox status` (or a script reading state.json) right after start then sees
 * the new onbox, never the old record or none (a loaded box takes a moment
 * between the lock and the first state.json).  If state.json never names it
 * within the bound, the lock is still proof enough to say "started": with
 * the pid our child's (nohup, job), or unknown (tmux: not our child).
 */
static int
start_confirm(struct start_ctx *s, int (*has_session)(const char *))
{
	struct deadline d;
	char status[32];
	long pid;
	int wst, locked = 0;

	deadline_set(&d, START_WAIT_MS);
	while (!deadline_expired(&d)) {
		if (!locked && lock_is_held(s->lockp) == 1)
			locked = 1;
		/* Our child first: one that already exited (75) is not the lock's holder. */
		if (s->child > 0 && waitpid(s->child, &wst, WNOHANG) == s->child) {
			if (WIFEXITED(wst) && WEXITSTATUS(wst) == 0)
				return 1;
			log_error("onbox exited at once (%s%d); see %s/.watchkeeper/onbox.out",
			    WIFEXITED(wst) ? "exit " : "signal ",
			    WIFEXITED(wst) ? WEXITSTATUS(wst) : WTERMSIG(wst), s->cfg->workdir);
			return WIFEXITED(wst) ? WEXITSTATUS(wst) : WK_EX_SOFTWARE;
		}
		if (locked) {
			start_state(s->cfg, &pid, status, sizeof(status));
			if (s->child > 0 ? pid == s->child : pid != s->oldpid && start_alive(pid)) {
				s->pid = pid;
				return 0;
			}
		}
		if (has_session != NULL && !has_session(s->cfg->session)) {
			start_state(s->cfg, &pid, status, sizeof(status));
			if (locked)
				return 0;	/* it ran and is already gone: started, pid unknown */
			if (strcmp(status, "done") == 0)
				return 1;
			log_error("onbox ended at once (status %s); see %s/.watchkeeper/onbox.log",
			    status, s->cfg->workdir);
			return strcmp(status, "failed") == 0 ? WK_EX_FAIL : WK_EX_SOFTWARE;
		}
		usleep(20000);
	}
	if (locked) {
		s->pid = s->child > 0 ? s->child : 0;
		return 0;
	}
	log_error("onbox did not take the run's lock within %d s; see %s/.watchkeeper/onbox.log",
	    START_WAIT_MS / 1000, s->cfg->workdir);
	return WK_EX_SOFTWARE;
}

static int
cmd_start_exec(struct onbox_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "allow-dirty", no_argument, NULL, 'D' },
		{ "check", no_argument, NULL, 'K' },
		{ NULL, 0, NULL, 0 }
	};
	struct start_ctx s;
	char *failed = NULL, status[32];
	size_t i;
	long pid;
	int ch, rc = 0, held, check = 0;

	memset(&s, 0, sizeof(s));
	optind = 0;
	while ((ch = getopt_long(ctx->argc, ctx->argv, "+c:", longopts, NULL)) != -1) {
		if (ch == 'D')
			s.allow_dirty = 1;
		else if (ch == 'K')
			check = 1;
		else if (ch == 'c')
			ctx->config_opt = optarg;
		else
			return onbox_usage(&onbox_cmd_start);
	}
	if (optind != ctx->argc)
		return onbox_usage(&onbox_cmd_start);
	if ((s.cfg = onbox_load_config(ctx)) == NULL)
		return WK_EX_CONFIG;
	/* --check: the contract, checked and printed; nothing is started or written. */
	if (check) {
		rc = onbox_gate(s.cfg, 0, 1, NULL);
		goto out;
	}
	for (i = 0; i < sizeof(start_table) / sizeof(start_table[0]); i++)
		if (strcmp(start_table[i].name, s.cfg->detach) == 0)
			break;
	if (s.cfg->detach_kind == DETACH_SLURM) {
		/* the scheduler is layer 1's supervisor: no onbox stays on the login node */
		s.self = fs_self_exe();
		s.cfgpath = fs_abspath(s.cfg->path);
		if (s.self == NULL) {
			log_error("cannot find my own executable (/proc/self/exe)");
			rc = WK_EX_SOFTWARE;
		} else {
			if ((rc = onbox_gate(s.cfg, s.allow_dirty, 0, NULL)) != 0)
				goto out;
			if (stop_clear(s.cfg->workdir))
				printf("run %s was stopped on purpose: starting it again from the first "
				    "missing marker\n", s.cfg->run);
			rc = slurmstart_run(s.cfg, s.self, s.cfgpath);
		}
		goto out;
	}
	if (i == 0 && !start_on_path("tmux")) {
		/* A rented box without tmux: nohup keeps the run alive just as well. */
		printf("tmux is not on the PATH: starting run %s with nohup instead (watch: tail -f "
		    "%s/" LAYOUT_DIR "/onbox.out)\n", s.cfg->run, s.cfg->workdir);
		fflush(stdout);
		i = 1;
	}
	if (i == sizeof(start_table) / sizeof(start_table[0])) {
		log_error("%s: \"detach\": \"%s\" is not supported by this onbox; use tmux, nohup, "
		    "job or slurm", s.cfg->path, s.cfg->detach);
		rc = WK_EX_CONFIG;
		goto out;
	}
	if (layout_create(s.cfg->workdir, &failed) != 0) {
		log_error("cannot create %s: %s", failed, wk_strerror(WK_ERR_SYSTEM));
		rc = WK_EX_IOERR;
		goto out;
	}
	s.lockp = layout_path(s.cfg->workdir, "onbox.lock");
	if ((held = lock_is_held(s.lockp)) != 0) {
		start_state(s.cfg, &pid, status, sizeof(status));
		if (held == 1 && start_alive(pid))
			log_error("run %s is already running (onbox pid %ld); not starting another",
			    s.cfg->run, pid);
		else if (held == 1)	/* it holds the lock but has not written state.json yet */
			log_error("run %s is already running (onbox pid unknown yet); not starting "
			    "another", s.cfg->run);
		else
			log_error("cannot check %s: %s", s.lockp, wk_strerror(WK_ERR_SYSTEM));
		rc = held == 1 ? WK_EX_TEMPFAIL : WK_EX_IOERR;
		goto out;
	}
	s.self = fs_self_exe();
	s.cfgpath = fs_abspath(s.cfg->path);
	if (s.self == NULL) {
		log_error("cannot find my own executable (/proc/self/exe)");
		rc = WK_EX_SOFTWARE;
		goto out;
	}
	start_state(s.cfg, &s.oldpid, status, sizeof(status));
	/*
	 * Read before any start: a short chain may finish before start_confirm
	 * looks, and "nothing to do" is said only when nothing was started.
	 */
	if (runner_first_missing(s.cfg) == s.cfg->nchain) {
		printf("run %s: nothing to do, every marker is already present\n", s.cfg->run);
		rc = 0;
		goto out;
	}
	/* Before the stop is undone and anything starts: the contract, checked (gate.h). */
	if ((rc = onbox_gate(s.cfg, s.allow_dirty, 0, NULL)) != 0)
		goto out;
	if (stop_clear(s.cfg->workdir))
		printf("run %s was stopped on purpose: starting it again from the first missing "
		    "marker\n", s.cfg->run);
	if ((rc = start_table[i].start(&s)) != 0)
		goto out;
	rc = start_confirm(&s, i == 0 ? tmux_has : NULL);
	if (rc == 1) {	/* it ran the chain and ended before start_confirm saw it */
		printf("started run %s with %s in %s (it has finished already: every marker "
		    "present)\n", s.cfg->run, start_table[i].name, s.cfg->workdir);
		rc = 0;
		goto out;
	}
	if (rc != 0)
		goto out;
	if (s.pid > 0)
		printf("started run %s with %s (onbox pid %ld) in %s\n", s.cfg->run,
		    start_table[i].name, s.pid, s.cfg->workdir);
	else
		printf("started run %s with %s (onbox pid unknown yet) in %s\n", s.cfg->run,
		    start_table[i].name, s.cfg->workdir);
	printf("  watch:  ");
	printf(start_table[i].watch, i == 0 ? s.cfg->session : s.cfg->workdir);
	printf("\n  status: %s -c %s status\n", s.self, s.cfgpath);
 out:
	free(failed);
	free(s.self);
	free(s.cfgpath);
	free(s.lockp);
	config_free(s.cfg);
	return rc;
}

const struct onbox_cmd onbox_cmd_start = {
	.name = "start",
	.args = "[-c FILE] [--allow-dirty] [--check]",
	.help = "start `onbox run` detached (tmux, nohup, job), or submit the chain to Slurm; "
	    "refuses when one is running or the launch gate refuses; --check: print the launch "
	    "contract, start nothing",
	.exec = cmd_start_exec,
};
