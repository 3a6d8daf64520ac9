/* agents-unix-local-seccomp.c - the seccomp filter that takes the network away
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <grp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#endif

#ifdef HAVE_SECCOMP
#include <seccomp.h>
#endif

#include <glib-unix.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "agents-sandbox-error-private.h"
#include "agents-unix-local-confine-private.h"

#ifdef __linux__

/* ---- seccomp -------------------------------------------------------- */

/* The BPF program that refuses sockets other than AF_UNIX (and io_uring,
 * which can open sockets behind the filter's back). */
static GBytes *
seccomp_no_network_program (GError **error)
{
#ifdef HAVE_SECCOMP
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  g_autoptr (GByteArray) program = g_byte_array_new ();
  guint8 buffer[4096];
  ssize_t n;
  int fd = -1;
  int rc;

  if (ctx == NULL)
    {
      agents_unix_local_set_errno_error (error, "seccomp_init", NULL, ENOMEM);
      return NULL;
    }
  rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT), SCMP_SYS (socket),
                         1, SCMP_A0 (SCMP_CMP_NE, AF_UNIX));
  if (rc == 0)
    rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EAFNOSUPPORT),
                           SCMP_SYS (socketpair), 1,
                           SCMP_A0 (SCMP_CMP_NE, AF_UNIX));
  if (rc == 0)
    rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (ENOSYS),
                           SCMP_SYS (io_uring_setup), 0);
  if (rc == 0)
    rc = seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);
  if (rc == 0)
    {
      fd = memfd_create ("agents-seccomp", MFD_CLOEXEC);
      rc = fd < 0 ? -errno : seccomp_export_bpf (ctx, fd);
    }
  seccomp_release (ctx);
  if (rc == 0 && lseek (fd, 0, SEEK_SET) == 0)
    while ((n = read (fd, buffer, sizeof buffer)) > 0)
      g_byte_array_append (program, buffer, n);
  if (fd >= 0)
    close (fd);
  if (rc != 0 || program->len == 0 ||
      program->len % sizeof (struct sock_filter) != 0)
    {
      agents_unix_local_set_errno_error (error, "seccomp_export_bpf", NULL,
                                         rc < 0 ? -rc : EINVAL);
      return NULL;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&program));
#else
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                            "%s",
                            _ ("network isolation needs seccomp, and this "
                               "build has no libseccomp"));
  return NULL;
#endif
}

/* The program never changes: built once per process. */
GBytes *
agents_unix_local_seccomp_no_network_program (GError **error)
{
  static GMutex lock;
  static GBytes *cached;
  GBytes *program;

  g_mutex_lock (&lock);
  if (cached == NULL)
    cached = seccomp_no_network_program (error);
  program = cached != NULL ? g_bytes_ref (cached) : NULL;
  g_mutex_unlock (&lock);
  return program;
}

#endif /* __linux__ */
