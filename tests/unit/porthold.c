/*
 * porthold: take a TCP port on 127.0.0.1 race-free and hold it for a test's
 * whole life (tests/e2e/lib.sh's port_take; the demo's receiver port).
 *
 *   porthold MODE PORT_FILE
 *
 * The kernel picks the port (bind to port 0), so no two holders, and no
 * other bind(0) or outgoing connection on this machine, can get the same
 * one; the port is written to PORT_FILE (atomically) and held until this
 * process is killed or the process that started it (the test's shell) has
 * ended, an hour at most.  The socket has SO_REUSEADDR and, in mode "hold",
 * never listens: Linux then lets a server that also sets SO_REUSEADDR (sshd,
 * slurmctld, slurmd, the tests' receiver) bind and listen on it, so the port
 * is handed over to that server (bind, then hand over; never
 * probe-then-use), and when the server stops, the port is still held: a
 * connection to it is refused, and no other test's server can take it.  The
 * other modes are servers of their own:
 *
 *   hold   bound, not listening: refused (or the port a server takes over)
 *   full   listening with its one-slot backlog filled: a connect gets no
 *          answer (the kernel drops the SYN), a hanging connect without
 *          iptables
 *   mute   accepts every connection and never sends a byte (no SSH banner)
 *
 * Exit 0 when the parent has ended, 64 on bad usage, 1 when the port could
 * not be taken or written (the reason on stderr).  C, not python3: a test
 * takes a port for every sshd it starts, and a python3 start costs some
 * 80 ms of CPU on these machines, this one a millisecond.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int
die(const char *what)
{
	fprintf(stderr, "porthold: %s: %s\n", what, strerror(errno));
	return 1;
}

/* A socket connected (or connecting, when nonblock) to 127.0.0.1:port. */
static int
connect_to(unsigned short port, int nonblock)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0 && !(nonblock && errno == EINPROGRESS)) {
		close(fd);
		return -1;
	}
	return fd;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	const char *mode, *path;
	char tmp[4096];
	pid_t parent = getppid();
	int s, one = 1, mute;
	FILE *f;

	if (argc != 3 || (strcmp(argv[1], "hold") != 0 && strcmp(argv[1], "full") != 0 &&
	    strcmp(argv[1], "mute") != 0)) {
		fprintf(stderr, "usage: porthold hold|full|mute PORT_FILE\n");
		return 64;
	}
	mode = argv[1];
	path = argv[2];
	mute = strcmp(mode, "mute") == 0;
	/* Ends with the test's shell (checked below too: it may have ended already). */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0)
		return die("prctl");
	if (getppid() != parent)
		return 0;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return die("socket");
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0)
		return die("SO_REUSEADDR");
	if (bind(s, (struct sockaddr *)&a, sizeof(a)) != 0)
		return die("bind 127.0.0.1:0");
	if (getsockname(s, (struct sockaddr *)&a, &alen) != 0)
		return die("getsockname");
	if (strcmp(mode, "full") == 0) {
		/* backlog 0: one connection fills it; the next one's SYN is dropped */
		if (listen(s, 0) != 0)
			return die("listen");
		if (connect_to(ntohs(a.sin_port), 0) < 0 || connect_to(ntohs(a.sin_port), 1) < 0)
			return die("filling the backlog");
	} else if (mute && listen(s, 8) != 0)
		return die("listen");
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return die(path);
	}
	if ((f = fopen(tmp, "w")) == NULL)
		return die(tmp);
	if (fprintf(f, "%u\n", (unsigned)ntohs(a.sin_port)) < 0 || fclose(f) != 0)
		return die(tmp);
	if (rename(tmp, path) != 0)
		return die(path);
	alarm(3600);	/* an hour at most: SIGALRM ends it */
	/*
	 * Held while the test that took it runs; mute takes every connection
	 * (kept open, never read or written) until it runs out of descriptors,
	 * and the rest then wait in the backlog, as unanswered.
	 */
	while (getppid() == parent) {
		struct pollfd p = { .fd = s, .events = POLLIN };

		if (poll(&p, mute ? 1 : 0, 1000) > 0 && (p.revents & POLLIN) &&
		    accept4(s, NULL, NULL, SOCK_CLOEXEC) < 0)
			mute = 0;
	}
	return 0;
}
