/* agents-docker-owner.c - which process owns a container, and whether
 * it is gone
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "agents-docker-container.h"

/* A container's owner is "MACHINE_ID:BOOT_ID:PIDNS:PID:START_TIME":
 * a process is one pid at one start time (clock ticks after boot, field
 * 22 of /proc/PID/stat) in one pid namespace of one boot of one machine.
 * A hostname and a pid are not enough: two machines may share a name,
 * and pids are reused. Reap removes a container only when its owner is
 * provably gone. */

/* The pid namespace every Linux boot starts with (PROC_PID_INIT_INO). */
#define INITIAL_PIDNS "4026531836"

typedef struct
{
  char *machine;
  char *boot;
  char *pidns;
  gint64 pid;
  guint64 start;
} Owner;

static void
owner_clear (Owner *owner)
{
  g_free (owner->machine);
  g_free (owner->boot);
  g_free (owner->pidns);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Owner, owner_clear)

/* The first line of @path, if it is a non-empty run of hex digits and
 * dashes (a machine id, a boot id). */
static char *
read_id (const char *path)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  g_strstrip (text);
  if (*text == '\0' || strlen (text) > 64)
    return NULL;
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isxdigit (*p) && *p != '-')
      return NULL;
  return g_steal_pointer (&text);
}

static char *
machine_id (void)
{
  char *id = read_id ("/etc/machine-id");

  return id ? id : read_id ("/var/lib/dbus/machine-id");
}

/* The inode number of this process's pid namespace. */
static char *
pid_namespace (void)
{
  g_autofree char *link = g_file_read_link ("/proc/self/ns/pid", NULL);
  const char *open_bracket = link ? strchr (link, '[') : NULL;
  gsize len = open_bracket ? strspn (open_bracket + 1, "0123456789") : 0;

  if (len == 0 || open_bracket[1 + len] != ']')
    return NULL;
  return g_strndup (open_bracket + 1, len);
}

/* The start time of @pid, or FALSE when there is no such process (or
 * it cannot be told). */
static gboolean
start_time (gint64 pid, guint64 *start)
{
  g_autofree char *path =
    g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/stat", pid);
  g_autofree char *text = NULL;
  g_auto (GStrv) fields = NULL;
  const char *after_comm;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return FALSE;
  /* The command name may hold spaces and parentheses: fields are
   * counted from the last ")", which ends it; starttime is the 20th
   * after it. */
  after_comm = strrchr (text, ')');
  if (after_comm == NULL)
    return FALSE;
  fields = g_strsplit (after_comm + 1, " ", 0);
  if (g_strv_length (fields) < 21)
    return FALSE;
  return g_ascii_string_to_unsigned (fields[20], 10, 0, G_MAXUINT64, start,
                                     NULL);
}

static void
owner_self (Owner *owner)
{
  owner->machine = machine_id ();
  owner->boot = read_id ("/proc/sys/kernel/random/boot_id");
  owner->pidns = pid_namespace ();
  owner->pid = getpid ();
  if (!start_time (owner->pid, &owner->start))
    owner->start = 0;
}

char *
agents_docker_owner_label (void)
{
  g_auto (Owner) self = { 0 };

  owner_self (&self);
  return g_strdup_printf ("%s:%s:%s:%" G_GINT64_FORMAT ":%" G_GUINT64_FORMAT,
                          self.machine ? self.machine : "",
                          self.boot ? self.boot : "",
                          self.pidns ? self.pidns : "", self.pid, self.start);
}

static gboolean
owner_parse (const char *label, Owner *owner)
{
  g_auto (GStrv) parts = label ? g_strsplit (label, ":", -1) : NULL;

  if (parts == NULL || g_strv_length (parts) != 5 || *parts[0] == '\0' ||
      *parts[1] == '\0' || *parts[2] == '\0' ||
      !g_ascii_string_to_signed (parts[3], 10, 1, G_MAXINT, &owner->pid,
                                 NULL) ||
      !g_ascii_string_to_unsigned (parts[4], 10, 0, G_MAXUINT64, &owner->start,
                                   NULL))
    return FALSE;
  owner->machine = g_strdup (parts[0]);
  owner->boot = g_strdup (parts[1]);
  owner->pidns = g_strdup (parts[2]);
  return TRUE;
}

/* Whether the process is gone from this pid namespace: no such pid, or
 * a pid reused by a process that started at another time. */
static gboolean
process_gone (const Owner *owner)
{
  guint64 start;

  if (start_time (owner->pid, &start))
    return start != owner->start;
  return kill ((pid_t) owner->pid, 0) < 0 && errno == ESRCH;
}

gboolean
agents_docker_owner_gone (const char *label)
{
  g_auto (Owner) owner = { 0 };
  g_auto (Owner) self = { 0 };

  /* Older labels ("host:pid") and foreign ones prove nothing. */
  if (!owner_parse (label, &owner))
    return FALSE;
  owner_self (&self);
  /* Another machine's processes cannot be checked from here. */
  if (self.machine == NULL || g_strcmp0 (owner.machine, self.machine) != 0)
    return FALSE;
  /* An earlier boot of this machine has no process left; but only the
   * initial pid namespace is sure to see the machine's own machine id
   * (a container image may carry a copied one). */
  if (g_strcmp0 (owner.boot, self.boot) != 0)
    return g_strcmp0 (owner.pidns, INITIAL_PIDNS) == 0 &&
           g_strcmp0 (self.pidns, INITIAL_PIDNS) == 0;
  /* Another pid namespace's pids mean nothing here. */
  if (g_strcmp0 (owner.pidns, self.pidns) != 0)
    return FALSE;
  return process_gone (&owner);
}
