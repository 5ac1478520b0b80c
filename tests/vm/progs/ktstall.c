// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Test client of ksymtap serve that stops reading: connects, sends the
 * handshake, reads nothing until FILE exists, then copies everything to
 * stdout until EOF.  No pipe or tool buffers in between, so a few records
 * are enough to fill the daemon's queue for it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	static const char hello[] = "format=json\n";
	char buf[65536];
	ssize_t n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: ktstall SOCKET FILE\n");
		return 2;
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    write(fd, hello, sizeof(hello) - 1) != sizeof(hello) - 1) {
		fprintf(stderr, "ktstall: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fprintf(stderr, "ktstall: connected, not reading\n");
	while (access(argv[2], F_OK))
		usleep(50 * 1000);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (write(STDOUT_FILENO, buf, n) != n)
			return 1;
	return 0;
}
