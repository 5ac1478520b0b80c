// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Connects to a serve socket, sends one handshake line exactly as given
 * (escapes: \n, \r, \xHH), shuts down its sending side and copies what the
 * daemon answers to stdout for up to 3 s.  For the handshake and query tests.
 *   kthello SOCKET LINE [FILE]
 * FILE's bytes are sent after LINE (requests too many for an argument).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char out[4096], buf[65536];
	size_t n = 0;
	const char *p;
	ssize_t r;
	int fd;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: kthello SOCKET LINE [FILE]\n");
		return 2;
	}
	for (p = argv[2]; *p && n < sizeof(out); p++) {
		unsigned int x;

		if (p[0] == '\\' && (p[1] == 'n' || p[1] == 'r')) {
			out[n++] = p[1] == 'n' ? '\n' : '\r';
			p++;
		} else if (p[0] == '\\' && p[1] == 'x' && sscanf(p + 2, "%2x", &x) == 1) {
			out[n++] = x;
			p += 3;
		} else {
			out[n++] = *p;
		}
	}
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		perror("kthello: connect");
		return 1;
	}
	if (write(fd, out, n) != (ssize_t)n) {
		perror("kthello: write");
		return 1;
	}
	if (argc == 4) {
		FILE *f = fopen(argv[3], "r");

		while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
			if (write(fd, buf, n) != (ssize_t)n) {
				perror("kthello: write");
				return 1;
			}
		if (!f) {
			perror(argv[3]);
			return 1;
		}
		fclose(f);
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (poll(&pf, 1, 3000) <= 0)
			break;
		r = read(fd, buf, sizeof(buf));
		if (r <= 0)
			break;
		fwrite(buf, 1, r, stdout);
	}
	return 0;
}
