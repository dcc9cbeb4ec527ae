/* outpath.c - the output paths of the commands (compile -o and
 * --emit-mzn, run and sim --trace, bench --json and --plots, calibrate
 * --out): `-` is standard output for a file, and every path is checked
 * before the work starts, so that a run of hours does not fail at its end
 * on a typing mistake. Declared in opts.h.
 *
 * Checking leaves the file system as it was: an existing file is opened
 * for writing without being truncated, a new file or folder is made and
 * removed again.
 */
#include "cli/opts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool cli_is_stdout(const char *path) { return path && !strcmp(path, "-"); }

/* Whether a file can be written at path; errno says why not. */
static bool file_writable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return false;
        }
        if (S_ISFIFO(st.st_mode)) /* opening it would wait for a reader */
            return access(path, W_OK) == 0;
        int fd = open(path, O_WRONLY | O_NONBLOCK);
        if (fd < 0)
            return false;
        close(fd);
        return true;
    }
    if (errno != ENOENT)
        return false;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0)
        return errno == EEXIST; /* made meanwhile, or a link to a file yet to be made */
    close(fd);
    unlink(path);
    return true;
}

/* Whether a folder exists at path, or can be made there, and files can be
 * made in it; errno says why not. */
static bool dir_writable(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            return false;
        }
        return access(path, W_OK | X_OK) == 0;
    }
    if (errno != ENOENT)
        return false;
    if (mkdir(path, 0777) != 0)
        return false;
    rmdir(path);
    return true;
}

bool cli_output_check(const char *cmd, const char *path)
{
    if (!path || cli_is_stdout(path))
        return true;
    if (!*path || !file_writable(path)) {
        cli_error(cmd, "cannot write '%s': %s", path, *path ? strerror(errno) : "an empty path");
        return false;
    }
    return true;
}

bool cli_output_dir_check(const char *cmd, const char *opt, const char *path)
{
    if (!path)
        return true;
    if (cli_is_stdout(path)) {
        cli_usage_error(cmd, "%s needs a folder; '-' (standard output) is for the options that write one file",
                        opt);
        return false;
    }
    if (!*path || !dir_writable(path)) {
        cli_error(cmd, "cannot write '%s': %s", path, *path ? strerror(errno) : "an empty path");
        return false;
    }
    return true;
}

FILE *cli_output_open(const char *cmd, const char *path)
{
    if (cli_is_stdout(path))
        return stdout;
    FILE *f = fopen(path, "w");
    if (!f)
        cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
    return f;
}

bool cli_output_close(const char *cmd, const char *path, FILE *f)
{
    bool ok = !ferror(f);
    int err = errno;
    if (f == stdout) {
        if (fflush(f) != 0)
            ok = false, err = errno;
    } else if (fclose(f) != 0) {
        ok = false, err = errno;
    }
    if (!ok && f == stdout)
        cli_error(cmd, "cannot write to standard output: %s", strerror(err));
    else if (!ok)
        cli_error(cmd, "cannot write '%s': %s", path, strerror(err));
    return ok;
}

bool cli_output_write(const char *cmd, const char *path, const char *text)
{
    FILE *f = cli_output_open(cmd, path);
    if (!f)
        return false;
    fputs(text, f);
    return cli_output_close(cmd, path, f);
}
