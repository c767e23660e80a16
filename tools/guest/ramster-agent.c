// SPDX-License-Identifier: GPL-2.0
/*
 * ramster-agent - the command agent of a cluster node (see ramster-node)
 *
 *   ramster-agent DEVICE NAME
 *
 * Reads "<id> <command>" lines from DEVICE (the node's second virtio
 * console), runs each command with sh -c, and writes back its output and
 * "@@RAMSTER-END <id> <status>".  "poweroff" ends it: it swaps off, says
 * "RAMSTER-NODE: NAME down" on standard output (the serial console) and
 * reboots the guest, which QEMU turns into an exit.
 *
 * The agent is the node's PID 1 (/init execs "ramster-node boot", which
 * execs the agent).  It locks its memory (mlockall): when a peer dies
 * with some of this node's pages, every process whose pages were there
 * dies of SIGBUS, and PID 1 must not be among them (the kernel panics
 * when init dies), or nobody could tell the host what happened.  As
 * PID 1 it reaps orphans, and it never returns: it powers the node off.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/reboot.h>
#include <sys/wait.h>
#include <unistd.h>

#define OUTPUT "/tmp/agent.out"

#define REAPED "/tmp/reaped"

/* As a shell reports it: the exit code, or 128 + the signal. */
static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

/*
 * Orphans (background commands) are ours to reap, as PID 1; their exit
 * codes go to REAPED as "PID CODE" lines (a test reads how they ended).
 * No allocation between the reaping and the record: under memory
 * pressure a record lost is a process that never ends, for the tests.
 */
static void reap_orphans(void)
{
	char rec[32];
	pid_t pid;
	int status, fd, n;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		n = snprintf(rec, sizeof(rec), "%d %d\n", (int)pid,
			     exit_code(status));
		fd = open(REAPED, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			  0644);
		if (fd < 0 || write(fd, rec, n) != n)
			fprintf(stderr, "ramster-agent: %s lost: %s", REAPED, rec);
		if (fd >= 0)
			close(fd);
	}
}

/*
 * A fork() that fails for want of memory or of PIDs is tried again for a
 * few seconds (reaping orphans meanwhile when out of PIDs): the tests run commands on
 * nodes under memory pressure, and a command that did not run reads on
 * the host as one that printed nothing.  Why it did not run goes to the
 * serial console, which the host keeps.
 */
static pid_t fork_patiently(void)
{
	pid_t pid;
	int tries, err;

	for (tries = 0;; tries++) {
		pid = fork();
		if (pid >= 0)
			return pid;
		err = errno;
		if ((err != EAGAIN && err != ENOMEM) || tries == 49)
			break;
		/* Out of PIDs: zombies free them (not memory: they hold none). */
		if (err == EAGAIN)
			reap_orphans();
		usleep(100000);
	}
	fprintf(stderr, "ramster-agent: cannot run a command: fork: %s\n",
		strerror(err));
	return -1;
}

/* Run a command, its output in OUTPUT; returns its exit status. */
static int run(const char *cmd)
{
	int status, fd, con, err;
	pid_t pid;

	/* Never the last command's output, if this one cannot write its own. */
	unlink(OUTPUT);
	pid = fork_patiently();
	if (pid < 0)
		return 127;
	if (pid == 0) {
		/* The console, for why the command did not run. */
		con = fcntl(2, F_DUPFD_CLOEXEC, 3);
		fd = open(OUTPUT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			perror("ramster-agent: " OUTPUT);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		fd = open("/dev/null", O_RDONLY);
		if (fd >= 0) {
			dup2(fd, 0);
			close(fd);
		}
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		err = errno;
		/* No output for the host: it did not run. */
		if (ftruncate(1, 0) < 0 && con >= 0)
			dprintf(con, "ramster-agent: %s: cannot empty it\n", OUTPUT);
		if (con >= 0)
			dprintf(con, "ramster-agent: /bin/sh: %s\n", strerror(err));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 127;
	reap_orphans();
	return exit_code(status);
}

/* Copy OUTPUT to the agent's device. */
static void send_output(int dev)
{
	char buf[4096];
	ssize_t n;
	int fd = open(OUTPUT, O_RDONLY);

	if (fd < 0)
		return;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(dev, buf, n) != n)
			break;
	close(fd);
}

int main(int argc, char **argv)
{
	char line[8192], reply[128], *cmd;
	FILE *in;
	int dev, status;

	if (argc != 3) {
		fprintf(stderr, "usage: ramster-agent DEVICE NAME\n");
		goto power_off;
	}
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("ramster-agent: mlockall");
	/* Close-on-exec: the commands and their orphans never hold it. */
	dev = open(argv[1], O_RDWR | O_CLOEXEC);
	if (dev < 0) {
		perror(argv[1]);
		goto power_off;
	}
	in = fdopen(fcntl(dev, F_DUPFD_CLOEXEC, 0), "r");
	if (!in)
		goto power_off;
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\r\n")] = '\0';
		cmd = strchr(line, ' ');
		if (!cmd)
			continue;
		*cmd++ = '\0';
		if (!strcmp(cmd, "poweroff")) {
			snprintf(reply, sizeof(reply), "@@RAMSTER-END %.64s 0\n", line);
			if (write(dev, reply, strlen(reply)) < 0)
				break;
			break;
		}
		status = run(cmd);
		send_output(dev);
		snprintf(reply, sizeof(reply), "@@RAMSTER-END %.64s %d\n", line,
			 status);
		if (write(dev, reply, strlen(reply)) < 0)
			break;
	}

	/*
	 * Orderly: swap comes back in before the node goes, from whichever
	 * disk it is on (with a data disk it may not be /dev/vda).
	 */
	run("for d in $(awk 'NR > 1 { print $1 }' /proc/swaps); do swapoff $d; done");
	printf("RAMSTER-NODE: %s down\n", argv[2]);
power_off:
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);	/* QEMU runs with -no-reboot: it exits */
	for (;;)
		pause();
}
