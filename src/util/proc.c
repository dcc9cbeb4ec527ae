/* proc.c - the one process runner: run a program with its standard streams
 * redirected to files, optionally in another folder, and wait for it
 * (base.h). Used for minizinc and gnuplot.
 */
#include "util/base.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Open path on fd in the child; false (errno set) when it cannot. */
static bool redirect(int fd, const char *path, int flags)
{
    if (!path)
        return true;
    int f = open(path, flags, 0600);
    if (f < 0)
        return false;
    if (f != fd && (dup2(f, fd) < 0 || close(f) != 0))
        return false;
    return true;
}

/* The child: report errno through `report` and exit 126 (cannot enter the
 * folder) or 127 (cannot open a stream or run the program), as a shell does. */
LM_NORETURN static void child(const lm_proc *p, int report)
{
    int code = 126;
    if (!p->dir || chdir(p->dir) == 0) {
        code = 127;
        if (redirect(0, p->in, O_RDONLY) && redirect(1, p->out, O_WRONLY | O_CREAT | O_TRUNC) &&
            redirect(2, p->err, O_WRONLY | O_CREAT | O_TRUNC))
            execvp(p->argv[0], (char *const *)p->argv);
    }
    int e = errno;
    ssize_t w = write(report, &e, sizeof e);
    (void)w;
    _exit(code);
}

/* The errno the child reported, or 0 when it ran the program. */
static int child_error(int fd)
{
    int e = 0;
    ssize_t n;
    while ((n = read(fd, &e, sizeof e)) < 0 && errno == EINTR)
        ;
    return n == (ssize_t)sizeof e ? e : 0;
}

bool lm_proc_run(lm_proc *p)
{
    p->status = -1;
    p->signal = 0;
    p->errnum = 0;
    int fds[2];
    if (pipe(fds) != 0) {
        p->errnum = errno;
        return false;
    }
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    fflush(NULL); /* what we printed comes before what the child prints */
    pid_t pid = fork();
    if (pid < 0) {
        p->errnum = errno;
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        child(p, fds[1]);
    }
    close(fds[1]);
    int reported = child_error(fds[0]);
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            p->errnum = errno;
            return false;
        }
    if (WIFSIGNALED(st)) {
        p->signal = WTERMSIG(st);
        return false;
    }
    p->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    p->errnum = reported;
    return !reported;
}
