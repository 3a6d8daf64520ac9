/* agents-unix-local-landlock.c - Landlock rules for unix_local commands
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

/* ---- Landlock ------------------------------------------------------- */

#ifdef __linux__

/* Debian's headers know only ABI 1 and 2; the newer bits are defined
 * here and masked by the ABI the kernel reports. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#define AGENTS_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define AGENTS_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define AGENTS_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define AGENTS_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6. */
struct agents_landlock_ruleset_attr
{
  guint64 handled_access_fs;
  guint64 handled_access_net;
  guint64 scoped;
};

#define LL_READ                                                \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
   LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE_RIGHTS                                          \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
   LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
   LANDLOCK_ACCESS_FS_IOCTL_DEV)
#define LL_DEVICE                                                 \
  (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
   LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

static guint64
landlock_fs_mask (int abi)
{
  guint64 mask = (1ULL << 13) - 1;

  if (abi >= 2)
    mask |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3)
    mask |= LANDLOCK_ACCESS_FS_TRUNCATE;
  if (abi >= 5)
    mask |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
  return mask;
}

int
agents_unix_local_landlock_abi (void)
{
  int abi = syscall (__NR_landlock_create_ruleset, NULL, 0,
                     LANDLOCK_CREATE_RULESET_VERSION);

  return abi < 0 ? 0 : abi;
}

static gboolean
landlock_allow (int ruleset,
                const char *path,
                guint64 access,
                guint64 mask,
                gboolean follow,
                GError **error)
{
  struct landlock_path_beneath_attr attr = { 0 };
  struct stat st;
  int fd;

  fd = open (path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0)
    return errno == ENOENT || errno == ENOTDIR || errno == EACCES
             ? TRUE
             : agents_unix_local_set_errno_error (error, "open", path, errno);
  if (fstat (fd, &st) < 0 || S_ISLNK (st.st_mode))
    {
      close (fd);
      return TRUE;
    }
  if (!S_ISDIR (st.st_mode))
    access &= LL_FILE_RIGHTS;
  attr.allowed_access = access & mask;
  attr.parent_fd = fd;
  if (attr.allowed_access != 0 &&
      syscall (__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH,
               &attr, 0) < 0)
    {
      int saved_errno = errno;

      close (fd);
      return agents_unix_local_set_errno_error (error, "landlock_add_rule",
                                                path, saved_errno);
    }
  close (fd);
  return TRUE;
}

typedef struct
{
  int ruleset;
  guint64 mask;
  GPtrArray *holes;        /* paths that must not get @access */
  guint64 ancestor_access; /* what the dirs above a hole get */
  gboolean follow_children;
} TreeRules;

static gboolean
hole_under (const TreeRules *rules, const char *path, gboolean *is_hole)
{
  gboolean found = FALSE;

  *is_hole = FALSE;
  for (guint i = 0; i < rules->holes->len; i++)
    {
      const char *hole = g_ptr_array_index (rules->holes, i);

      if (g_str_equal (hole, path))
        *is_hole = TRUE;
      else if (agents_unix_local_path_is_at_or_under (hole, path))
        found = TRUE;
    }
  return found;
}

/* Allows @access beneath @path except beneath the holes. Landlock rules
 * only add up, so a hole is carved by giving the directories above it
 * less and enumerating their other children. */
static gboolean
landlock_allow_tree (const TreeRules *rules,
                     const char *path,
                     guint64 access,
                     gboolean follow,
                     GError **error)
{
  g_autoptr (GDir) dir = NULL;
  gboolean is_hole;
  const char *name;

  if (!hole_under (rules, path, &is_hole))
    return is_hole || landlock_allow (rules->ruleset, path, access, rules->mask,
                                      follow, error);
  if (!landlock_allow (rules->ruleset, path, access & rules->ancestor_access,
                       rules->mask, follow, error))
    return FALSE;

  dir = g_dir_open (path, 0, NULL);
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      /* Symlinks are not followed: their targets are checked on use. */
      if (g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        continue;
      if (!landlock_allow_tree (rules, child, access, FALSE, error))
        return FALSE;
    }
  return TRUE;
}

#endif /* __linux__ */

#ifdef __linux__

typedef struct
{
  const char *path;
  guint64 access;
} Region;

static void
collect_regions (const AgentsUnixLocalPolicy *policy,
                 guint64 rw,
                 GArray *regions)
{
  Region root = { policy->workspace_root, rw };

  g_array_append_val (regions, root);
  for (guint i = 0; i < policy->grants->len; i++)
    {
      AgentsUnixLocalGrant *grant = g_ptr_array_index (policy->grants, i);
      Region region = { grant->path, grant->read_only ? LL_READ : rw };

      g_array_append_val (regions, region);
    }
  if (policy->host_tmp_dir != NULL)
    {
      Region tmp = { policy->host_tmp_dir, rw };

      g_array_append_val (regions, tmp);
    }
}

/* *@reusable stays TRUE when the rules will hold for later commands
 * too: every region exists and none has holes, whose carving enumerates
 * what the directories above them contain now. */
static gboolean
landlock_add_regions (int ruleset,
                      const AgentsUnixLocalPolicy *policy,
                      guint64 mask,
                      gboolean *reusable,
                      GError **error)
{
  g_autoptr (GArray) regions = g_array_new (FALSE, FALSE, sizeof (Region));

  collect_regions (policy, mask, regions);
  for (guint i = 0; i < regions->len; i++)
    {
      Region *region = &g_array_index (regions, Region, i);
      g_autoptr (GPtrArray) holes = g_ptr_array_new ();
      TreeRules rules = { ruleset, mask, holes, LL_READ, FALSE };
      struct stat st;

      /* A region nested in this one with fewer rights is a hole. */
      for (guint j = 0; j < regions->len; j++)
        {
          Region *other = &g_array_index (regions, Region, j);

          if (!g_str_equal (other->path, region->path) &&
              agents_unix_local_path_is_at_or_under (other->path,
                                                     region->path) &&
              (other->access & region->access) != region->access)
            g_ptr_array_add (holes, (gpointer) other->path);
        }
      if (holes->len > 0 || stat (region->path, &st) < 0)
        *reusable = FALSE;
      if (!landlock_allow_tree (&rules, region->path, region->access, TRUE,
                                error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
landlock_add_system (int ruleset, guint64 mask, GError **error)
{
  static const char *const devices[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
  };
  g_autoptr (GPtrArray) secrets = agents_unix_local_etc_secrets ();
  TreeRules etc = { ruleset, mask, secrets, LANDLOCK_ACCESS_FS_READ_DIR,
                    FALSE };

  for (guint i = 0; i < G_N_ELEMENTS (agents_unix_local_system_dirs); i++)
    {
      gboolean ok =
        g_str_equal (agents_unix_local_system_dirs[i], "/etc")
          ? landlock_allow_tree (&etc, "/etc", LL_READ, TRUE, error)
          : landlock_allow (ruleset, agents_unix_local_system_dirs[i], LL_READ,
                            mask, TRUE, error);
      if (!ok)
        return FALSE;
    }
  /* /proc of processes outside the domain is guarded by Landlock's
   * ptrace restrictions. */
  if (!landlock_allow (ruleset, "/proc",
                       LANDLOCK_ACCESS_FS_READ_FILE |
                         LANDLOCK_ACCESS_FS_READ_DIR,
                       mask, TRUE, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    if (!landlock_allow (ruleset, devices[i], LL_DEVICE, mask, TRUE, error))
      return FALSE;
  return TRUE;
}

int
agents_unix_local_landlock_ruleset_reusable (
  const AgentsUnixLocalPolicy *policy,
  int abi,
  gboolean *reusable,
  GError **error)
{
  struct agents_landlock_ruleset_attr attr = { 0 };
  guint64 mask = landlock_fs_mask (abi);
  int ruleset;

  attr.handled_access_fs = mask;
  if (abi >= 4 && !policy->network)
    attr.handled_access_net = AGENTS_LANDLOCK_ACCESS_NET_BIND_TCP |
                              AGENTS_LANDLOCK_ACCESS_NET_CONNECT_TCP;
  if (abi >= 6)
    attr.scoped =
      AGENTS_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | AGENTS_LANDLOCK_SCOPE_SIGNAL;

  ruleset = syscall (__NR_landlock_create_ruleset, &attr,
                     abi >= 6   ? sizeof attr
                     : abi >= 4 ? 2 * sizeof (guint64)
                                : sizeof (guint64),
                     0);
  if (ruleset < 0)
    {
      agents_unix_local_set_errno_error (error, "landlock_create_ruleset", NULL,
                                         errno);
      return -1;
    }
  *reusable = TRUE;
  if (!landlock_add_system (ruleset, mask, error) ||
      !landlock_add_regions (ruleset, policy, mask, reusable, error))
    {
      close (ruleset);
      return -1;
    }
  return ruleset;
}

int
agents_unix_local_landlock_ruleset (const AgentsUnixLocalPolicy *policy,
                                    int abi,
                                    GError **error)
{
  gboolean reusable;

  return agents_unix_local_landlock_ruleset_reusable (policy, abi, &reusable,
                                                      error);
}

#else /* !__linux__ */

int
agents_unix_local_landlock_abi (void)
{
  return 0;
}

int
agents_unix_local_landlock_ruleset (const AgentsUnixLocalPolicy *policy,
                                    int abi,
                                    GError **error)
{
  agents_sandbox_error_set (error, AGENTS_SANDBOX_ERROR_NOT_SUPPORTED, NULL,
                            "%s", _ ("Landlock is only available on Linux"));
  return -1;
}

#endif /* __linux__ */
