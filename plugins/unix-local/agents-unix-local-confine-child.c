/* agents-unix-local-confine-child.c - what a confined command's child does
 * before exec
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <grp.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "agents-unix-local-confine-private.h"

#ifdef __linux__

void
agents_unix_local_mount_plan_free (MountPlan *plan)
{
  if (plan == NULL)
    return;
  g_strfreev (plan->paths);
  g_free (plan->is_dir);
  g_free (plan->trees);
  g_strfreev (plan->covers);
  g_strfreev (plan->dirs);
  g_free (plan);
}

static gboolean
searchable_by (const struct stat *st, guint32 uid, guint32 gid)
{
  if (st->st_uid == uid)
    return (st->st_mode & S_IXUSR) != 0;
  if (st->st_gid == gid)
    return (st->st_mode & S_IXGRP) != 0;
  return (st->st_mode & S_IXOTH) != 0;
}

/* The topmost ancestor of @path that @uid cannot search, or NULL. */
static char *
unsearchable_ancestor (const char *path, guint32 uid, guint32 gid)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  g_autoptr (GString) dir = g_string_new ("");
  guint n = g_strv_length (parts);

  /* parts[0] is "" (the root); the last part is @path itself. */
  for (guint i = 1; i + 1 < n; i++)
    {
      struct stat st;

      if (*parts[i] == '\0')
        continue;
      g_string_append_printf (dir, "/%s", parts[i]);
      if (stat (dir->str, &st) == 0 && S_ISDIR (st.st_mode) &&
          !searchable_by (&st, uid, gid))
        return g_strdup (dir->str);
    }
  return NULL;
}

static void
plan_cover_dirs (GPtrArray *dirs, const char *cover, const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr (GPtrArray) chain = g_ptr_array_new_with_free_func (g_free);

  while (agents_unix_local_path_is_at_or_under (dir, cover) &&
         !g_str_equal (dir, cover))
    {
      char *parent = g_path_get_dirname (dir);

      g_ptr_array_add (chain, g_steal_pointer (&dir));
      dir = parent;
    }
  for (guint i = chain->len; i > 0; i--)
    g_ptr_array_add (dirs, g_strdup (g_ptr_array_index (chain, i - 1)));
}

MountPlan *
agents_unix_local_mount_plan_new (const AgentsUnixLocalPolicy *policy,
                                  GPtrArray *bound)
{
  MountPlan *plan = g_new0 (MountPlan, 1);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) is_dir = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr (GPtrArray) covers = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) dirs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < bound->len; i++)
    {
      const char *path = g_ptr_array_index (bound, i);
      g_autofree char *cover = NULL;
      struct stat st;
      int dir;
      gboolean covered = FALSE;

      if (stat (path, &st) < 0)
        continue; /* a missing grant is not bound */
      dir = S_ISDIR (st.st_mode);
      g_ptr_array_add (paths, g_strdup (path));
      g_array_append_val (is_dir, dir);
      cover =
        unsearchable_ancestor (path, policy->sandbox_uid, policy->sandbox_gid);
      if (cover == NULL)
        continue;
      for (guint j = 0; !covered && j < covers->len; j++)
        covered = agents_unix_local_path_is_at_or_under (
          cover, g_ptr_array_index (covers, j));
      if (!covered)
        g_ptr_array_add (covers, g_strdup (cover));
      plan_cover_dirs (dirs, cover, path);
    }
  g_ptr_array_add (paths, NULL);
  g_ptr_array_add (covers, NULL);
  g_ptr_array_add (dirs, NULL);
  plan->trees = g_new0 (int, is_dir->len + 1);
  plan->is_dir = (int *) g_array_free (g_steal_pointer (&is_dir), FALSE);
  plan->paths = (char **) g_ptr_array_free (g_steal_pointer (&paths), FALSE);
  plan->covers = (char **) g_ptr_array_free (g_steal_pointer (&covers), FALSE);
  plan->dirs = (char **) g_ptr_array_free (g_steal_pointer (&dirs), FALSE);
  plan->cwd = policy->workspace_root;
  return plan;
}

void
agents_unix_local_child_report (const ChildSetup *setup, const char *step)
{
  char digits[16];
  int err = errno;
  int n = 0;
  char buf[16];

  do
    {
      buf[n++] = '0' + err % 10;
      err /= 10;
    }
  while (err > 0 && n < (int) sizeof buf);
  for (int i = 0; i < n; i++)
    digits[i] = buf[n - 1 - i];

  if (write (setup->report_fd, step, strlen (step)) < 0 ||
      write (setup->report_fd, ":", 1) < 0 ||
      write (setup->report_fd, digits, n) < 0)
    {
      /* Nothing more can be done in the child. */
    }
  _exit (126);
}

#ifndef MOUNT_ATTR_NOSUID
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif

/* struct mount_attr, which Debian's headers lack. */
struct agents_mount_attr
{
  guint64 attr_set;
  guint64 attr_clr;
  guint64 propagation;
  guint64 userns_fd;
};

static void
child_clone_trees (const ChildSetup *setup)
{
  const MountPlan *plan = setup->plan;
  struct agents_mount_attr attr = { MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV, 0, 0,
                                    0 };

  for (guint i = 0; plan->paths[i] != NULL; i++)
    {
      plan->trees[i] = syscall (__NR_open_tree, AT_FDCWD, plan->paths[i],
                                OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE |
                                  AT_SYMLINK_NOFOLLOW);
      if (plan->trees[i] < 0)
        agents_unix_local_child_report (setup, "open_tree");
      if (syscall (__NR_mount_setattr, plan->trees[i], "",
                   AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0)
        agents_unix_local_child_report (setup, "mount_setattr(nosuid)");
    }
}

static void
child_make_mount_point (const ChildSetup *setup, const char *path, int is_dir)
{
  int fd;

  if (is_dir)
    {
      if (mkdir (path, 0755) < 0 && errno != EEXIST)
        agents_unix_local_child_report (setup, "mkdir");
      return;
    }
  fd = open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    agents_unix_local_child_report (setup, "open(mount point)");
  close (fd);
}

static void
child_mount_plan (const ChildSetup *setup)
{
  const MountPlan *plan = setup->plan;
  const unsigned long cover_flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;

  if (unshare (CLONE_NEWNS) < 0)
    agents_unix_local_child_report (setup, "unshare(CLONE_NEWNS)");
  if (mount (NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
    agents_unix_local_child_report (setup, "mount(MS_SLAVE)");
  child_clone_trees (setup);
  for (guint i = 0; plan->covers[i] != NULL; i++)
    if (mount ("tmpfs", plan->covers[i], "tmpfs", cover_flags,
               "mode=0755,size=65536") < 0)
      agents_unix_local_child_report (setup, "mount(tmpfs)");
  for (guint i = 0; plan->dirs[i] != NULL; i++)
    if (mkdir (plan->dirs[i], 0755) < 0 && errno != EEXIST)
      agents_unix_local_child_report (setup, "mkdir");
  for (guint i = 0; plan->paths[i] != NULL; i++)
    {
      child_make_mount_point (setup, plan->paths[i], plan->is_dir[i]);
      if (syscall (__NR_move_mount, plan->trees[i], "", AT_FDCWD,
                   plan->paths[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
        agents_unix_local_child_report (setup, "move_mount");
      close (plan->trees[i]);
    }
  for (guint i = 0; plan->covers[i] != NULL; i++)
    if (mount (NULL, plan->covers[i], NULL,
               MS_REMOUNT | MS_RDONLY | cover_flags, NULL) < 0)
      agents_unix_local_child_report (setup, "mount(MS_REMOUNT)");
  /* The old working directory lies beneath the covers. */
  if (chdir (plan->cwd) < 0)
    agents_unix_local_child_report (setup, "chdir");
}

static void
child_set_limits (const ChildSetup *setup)
{
  if (setup->has_nproc && setrlimit (RLIMIT_NPROC, &setup->nproc) < 0)
    agents_unix_local_child_report (setup, "setrlimit(RLIMIT_NPROC)");
  if (setup->has_data && setrlimit (RLIMIT_DATA, &setup->data) < 0)
    agents_unix_local_child_report (setup, "setrlimit(RLIMIT_DATA)");
  if (setup->has_cpu && setrlimit (RLIMIT_CPU, &setup->cpu) < 0)
    agents_unix_local_child_report (setup, "setrlimit(RLIMIT_CPU)");
}

/* Raw system calls: glibc's change the identity of every thread of the
 * process, which a child sharing its caller's memory
 * (agents-unix-local-confine-clone.c) would take for its caller's. */
#ifdef SYS_setresuid32
#define SYS_SETGROUPS SYS_setgroups32
#define SYS_SETRESGID SYS_setresgid32
#define SYS_SETRESUID SYS_setresuid32
#else
#define SYS_SETGROUPS SYS_setgroups
#define SYS_SETRESGID SYS_setresgid
#define SYS_SETRESUID SYS_setresuid
#endif

static void
child_drop (const ChildSetup *setup)
{
  if (syscall (SYS_SETGROUPS, 0, NULL) < 0)
    agents_unix_local_child_report (setup, "setgroups");
  if (syscall (SYS_SETRESGID, setup->gid, setup->gid, setup->gid) < 0)
    agents_unix_local_child_report (setup, "setresgid");
  if (syscall (SYS_SETRESUID, setup->uid, setup->uid, setup->uid) < 0)
    agents_unix_local_child_report (setup, "setresuid");
  /* A change of identity clears the parent-death signal. */
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    agents_unix_local_child_report (setup, "prctl(PR_SET_PDEATHSIG)");
  if (getppid () != setup->parent_pid)
    _exit (127);
}

void
agents_unix_local_child_setup (gpointer data)
{
  const ChildSetup *setup = data;

  if (setsid () < 0)
    agents_unix_local_child_report (setup, "setsid");
  if (setup->tty)
    {
      if (!setup->ctty_inside && ioctl (0, TIOCSCTTY, 0) < 0)
        agents_unix_local_child_report (setup, "ioctl(TIOCSCTTY)");
      /* Ctrl-C on the terminal must reach the command. */
      signal (SIGINT, SIG_DFL);
      signal (SIGQUIT, SIG_DFL);
    }
  if (prctl (PR_SET_PDEATHSIG, SIGKILL) < 0)
    agents_unix_local_child_report (setup, "prctl(PR_SET_PDEATHSIG)");
  if (getppid () != setup->parent_pid)
    _exit (127);
  /* "0" is the writing process; what it starts follows it. */
  for (guint i = 0; setup->cgroup_procs != NULL && setup->cgroup_procs[i] >= 0;
       i++)
    if (write (setup->cgroup_procs[i], "0", 1) != 1)
      agents_unix_local_child_report (setup, "cgroup.procs");
  if (setup->plan != NULL)
    child_mount_plan (setup);
  child_set_limits (setup);
  if (setup->drop)
    child_drop (setup);
  if (!setup->restrict_self)
    return;
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    agents_unix_local_child_report (setup, "prctl(PR_SET_NO_NEW_PRIVS)");
  if (setup->ruleset_fd >= 0 &&
      syscall (__NR_landlock_restrict_self, setup->ruleset_fd, 0) < 0)
    agents_unix_local_child_report (setup, "landlock_restrict_self");
  if (setup->has_program &&
      prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &setup->program) < 0)
    agents_unix_local_child_report (setup, "prctl(PR_SET_SECCOMP)");
}

#endif /* __linux__ */
