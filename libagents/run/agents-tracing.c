/* agents-tracing.c - the tracing state of the process
 *
 * Copyright 2026 The libagents authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether tracing is disabled, the registered processors and the
 * dispatch of events to them, the per-thread stack of current traces and
 * spans, and the helpers the tracing types share. The types have a file
 * each: agents-trace.c, agents-span.c, agents-tracing-processor.c.
 */

#include "config.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#include "agents-run-private.h"
#include "agents-tracing.h"
#include "agents-tracing-private.h"

/* ---- global state -------------------------------------------------------- */

static GMutex processors_lock;
static GPtrArray *processor_list; /* AgentsTracingProcessor, in call order */
static int tracing_disabled;      /* atomic */
static guint64 span_sequence;     /* guarded by processors_lock */

static void
init_disabled_from_env (void)
{
  static gsize initialized = 0;

  if (g_once_init_enter (&initialized))
    {
      const char *env = g_getenv ("AGENTS_DISABLE_TRACING");

      if (env != NULL &&
          (g_str_equal (env, "1") || g_ascii_strcasecmp (env, "true") == 0))
        g_atomic_int_set (&tracing_disabled, TRUE);
      g_once_init_leave (&initialized, 1);
    }
}

/**
 * agents_tracing_set_disabled:
 * @disabled: whether tracing is disabled
 *
 * Disables or enables tracing for the whole process. While tracing is
 * disabled, new traces and spans do not record. The initial value is
 * %TRUE when the environment variable `AGENTS_DISABLE_TRACING` is `1` or
 * `true`.
 */
void
agents_tracing_set_disabled (gboolean disabled)
{
  init_disabled_from_env ();
  g_atomic_int_set (&tracing_disabled, !!disabled);
}

/**
 * agents_tracing_get_disabled:
 *
 * Gets whether tracing is disabled for the whole process.
 *
 * Returns: %TRUE if tracing is disabled
 */
gboolean
agents_tracing_get_disabled (void)
{
  init_disabled_from_env ();
  return g_atomic_int_get (&tracing_disabled);
}

static gpointer
copy_ref (gconstpointer object, gpointer user_data)
{
  return g_object_ref ((gpointer) object);
}

static GPtrArray *
ref_processors (void)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&processors_lock);

  /* The copy unrefs its elements, like processor_list. */
  if (processor_list == NULL || processor_list->len == 0)
    return NULL;
  return g_ptr_array_copy (processor_list, copy_ref, NULL);
}

void
agents_tracing_private_dispatch (AgentsTracingEvent event, gpointer object)
{
  g_autoptr (GPtrArray) list = ref_processors ();

  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      AgentsTracingProcessor *processor = list->pdata[i];

      switch (event)
        {
        case AGENTS_TRACING_EVENT_TRACE_START:
          agents_tracing_processor_on_trace_start (processor, object);
          break;
        case AGENTS_TRACING_EVENT_TRACE_END:
          agents_tracing_processor_on_trace_end (processor, object);
          break;
        case AGENTS_TRACING_EVENT_SPAN_START:
          agents_tracing_processor_on_span_start (processor, object);
          break;
        case AGENTS_TRACING_EVENT_SPAN_END:
          agents_tracing_processor_on_span_end (processor, object);
          break;
        }
    }
}
/* The start order of spans, for processors. */
guint64
agents_tracing_private_next_span_sequence (void)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&processors_lock);

  return ++span_sequence;
}

/* ---- the per-thread stack of current traces and spans -------------------- */

static GPrivate current_stack =
  G_PRIVATE_INIT ((GDestroyNotify) g_ptr_array_unref);

static GPtrArray *
get_stack (gboolean create)
{
  GPtrArray *stack = g_private_get (&current_stack);

  if (stack == NULL && create)
    {
      stack = g_ptr_array_new_with_free_func (g_object_unref);
      g_private_set (&current_stack, stack);
    }
  return stack;
}

static gboolean
entry_ended (gpointer entry)
{
  if (AGENTS_IS_TRACE (entry))
    return g_atomic_int_get (&AGENTS_TRACE (entry)->ended);
  return g_atomic_int_get (&AGENTS_SPAN (entry)->ended);
}

/* Finds the topmost live trace and the topmost live span above it. */
void
agents_tracing_private_find_current (AgentsTrace **trace, AgentsSpan **span)
{
  GPtrArray *stack = get_stack (FALSE);

  *trace = NULL;
  *span = NULL;
  if (stack == NULL)
    return;
  /* Entries ended on another thread linger; drop those on top. */
  while (stack->len > 0 && entry_ended (stack->pdata[stack->len - 1]))
    g_ptr_array_remove_index (stack, stack->len - 1);
  for (guint i = stack->len; i > 0; i--)
    {
      gpointer entry = stack->pdata[i - 1];

      if (entry_ended (entry))
        continue;
      if (AGENTS_IS_TRACE (entry))
        {
          *trace = entry;
          return;
        }
      if (*span == NULL)
        *span = entry;
    }
  *span = NULL;
}

void
agents_tracing_private_push_current (gpointer entry)
{
  g_ptr_array_add (get_stack (TRUE), g_object_ref (entry));
}

void
agents_tracing_private_remove_current (gpointer entry)
{
  GPtrArray *stack = get_stack (FALSE);

  for (guint i = stack != NULL ? stack->len : 0; i > 0; i--)
    {
      if (stack->pdata[i - 1] == entry)
        {
          g_ptr_array_remove_index (stack, i - 1);
          return;
        }
    }
}

/**
 * agents_tracing_get_current_trace:
 *
 * Gets the calling thread's current trace: the latest one begun with
 * agents_trace_begin() and not yet ended.
 *
 * Returns: (transfer none) (nullable): the current trace, or %NULL
 */
AgentsTrace *
agents_tracing_get_current_trace (void)
{
  AgentsTrace *trace;
  AgentsSpan *span;

  agents_tracing_private_find_current (&trace, &span);
  return trace;
}

/**
 * agents_tracing_get_current_span:
 *
 * Gets the calling thread's current span: the latest one of the current
 * trace begun with agents_span_begin() and not yet ended.
 *
 * Returns: (transfer none) (nullable): the current span, or %NULL
 */
AgentsSpan *
agents_tracing_get_current_span (void)
{
  AgentsTrace *trace;
  AgentsSpan *span;

  agents_tracing_private_find_current (&trace, &span);
  return span;
}

/* ---- helpers ------------------------------------------------------------- */

/* Ids come from a per-thread xoshiro256** generator seeded once from
 * getrandom(): they need to be unique, not secret, and
 * g_uuid_string_random() took a lock, formatted a UUID and had it
 * reformatted for every span. */
typedef struct
{
  guint64 state[4];
  gboolean seeded;
} IdGenerator;

static _Thread_local IdGenerator id_generator;

static guint64
rotate_left (guint64 x, int k)
{
  return (x << k) | (x >> (64 - k));
}

static guint64
splitmix64 (guint64 *x)
{
  guint64 z = (*x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* A child process must not repeat its parent's ids. */
static void
id_generator_forget (void)
{
  id_generator.seeded = FALSE;
}

static void
id_generator_seed (IdGenerator *generator)
{
  static gsize at_fork = 0;

  if (g_once_init_enter (&at_fork))
    {
      pthread_atfork (NULL, NULL, id_generator_forget);
      g_once_init_leave (&at_fork, 1);
    }
  if (getrandom (generator->state, sizeof generator->state, 0) !=
      sizeof generator->state)
    {
      /* No getrandom(): GLib's generator, itself seeded from the system. */
      guint64 x = ((guint64) g_random_int () << 32) ^ g_random_int () ^
                  (guint64) g_get_real_time () ^ (guintptr) generator;

      for (guint i = 0; i < G_N_ELEMENTS (generator->state); i++)
        generator->state[i] = splitmix64 (&x);
    }
  if ((generator->state[0] | generator->state[1] | generator->state[2] |
       generator->state[3]) == 0)
    generator->state[0] = 1;
  generator->seeded = TRUE;
}

static guint64
id_generator_next (IdGenerator *generator)
{
  guint64 *s = generator->state;
  guint64 result = rotate_left (s[1] * 5, 7) * 9;
  guint64 t = s[1] << 17;

  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotate_left (s[3], 45);
  return result;
}

char *
agents_tracing_private_new_id (const char *prefix, guint digits)
{
  static const char hex[] = "0123456789abcdef";
  IdGenerator *generator = &id_generator;
  gsize prefix_length = strlen (prefix);
  guint64 bits[2];
  char *id;

  g_return_val_if_fail (digits <= 32, NULL);

  if (!generator->seeded)
    id_generator_seed (generator);
  bits[0] = id_generator_next (generator);
  bits[1] = id_generator_next (generator);
  id = g_malloc (prefix_length + digits + 1);
  memcpy (id, prefix, prefix_length);
  for (guint i = 0; i < digits; i++)
    {
      guint nibble = (bits[i / 16] >> (4 * (i % 16))) & 0xf;

      /* The digits of a version 4 UUID, as the reference's uuid4().hex. */
      if (i == 12)
        nibble = 4;
      else if (i == 16)
        nibble = 8 | (nibble & 3);
      id[prefix_length + i] = hex[nibble];
    }
  id[prefix_length + digits] = '\0';
  return id;
}

/* ISO 8601 in the form Python's datetime.isoformat() gives. */
char *
agents_tracing_private_format_time (gint64 usec)
{
  g_autoptr (GDateTime) seconds = NULL;
  g_autoptr (GDateTime) time = NULL;

  if (usec == 0)
    return NULL;
  seconds = g_date_time_new_from_unix_utc (usec / G_USEC_PER_SEC);
  time = g_date_time_add (seconds, usec % G_USEC_PER_SEC);
  return g_date_time_format (time, "%Y-%m-%dT%H:%M:%S.%f+00:00");
}

void
agents_tracing_private_set_string_or_null (JsonObject *object,
                                           const char *member,
                                           const char *value)
{
  if (value != NULL)
    json_object_set_string_member (object, member, value);
  else
    json_object_set_null_member (object, member);
}

void
agents_tracing_set_time_member (JsonObject *object,
                                const char *member,
                                gint64 usec)
{
  g_autofree char *text = agents_tracing_private_format_time (usec);

  agents_tracing_private_set_string_or_null (object, member, text);
}

/* ---- the registered processors ------------------------------------------ */

/**
 * agents_tracing_add_processor:
 * @processor: a processor
 *
 * Adds @processor to those that receive every trace and span of the
 * process, after the ones already added.
 */
void
agents_tracing_add_processor (AgentsTracingProcessor *processor)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (processor));

  g_mutex_lock (&processors_lock);
  if (processor_list == NULL)
    processor_list = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (processor_list, g_object_ref (processor));
  g_mutex_unlock (&processors_lock);
}

/* Whether some processor is registered: without one, span data is seen
 * by nobody, and the runner need not snapshot it. */
gboolean
agents_tracing_private_has_processors (void)
{
  g_autoptr (GMutexLocker) locker = g_mutex_locker_new (&processors_lock);

  return processor_list != NULL && processor_list->len > 0;
}

/**
 * agents_tracing_remove_processor:
 * @processor: a processor
 *
 * Removes @processor from those that receive traces and spans.
 */
void
agents_tracing_remove_processor (AgentsTracingProcessor *processor)
{
  g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (processor));

  g_mutex_lock (&processors_lock);
  if (processor_list != NULL)
    g_ptr_array_remove (processor_list, processor);
  g_mutex_unlock (&processors_lock);
}

/**
 * agents_tracing_set_processors:
 * @processors: (array length=n_processors) (nullable): the processors
 * @n_processors: the number of @processors
 *
 * Replaces the processors that receive traces and spans, e.g. to trace
 * only to a test processor.
 */
void
agents_tracing_set_processors (AgentsTracingProcessor **processors,
                               guint n_processors)
{
  g_autoptr (GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; i < n_processors; i++)
    {
      g_return_if_fail (AGENTS_IS_TRACING_PROCESSOR (processors[i]));
      g_ptr_array_add (list, g_object_ref (processors[i]));
    }
  g_mutex_lock (&processors_lock);
  g_clear_pointer (&processor_list, g_ptr_array_unref);
  processor_list = g_steal_pointer (&list);
  g_mutex_unlock (&processors_lock);
}

static void
each_processor (void (*func) (AgentsTracingProcessor *))
{
  g_autoptr (GPtrArray) list = ref_processors ();

  if (list == NULL)
    return;
  for (guint i = 0; i < list->len; i++)
    func (list->pdata[i]);
}

/**
 * agents_tracing_force_flush:
 *
 * Asks every processor to write out what is pending now.
 */
void
agents_tracing_force_flush (void)
{
  each_processor (agents_tracing_processor_force_flush);
}

/**
 * agents_tracing_shutdown:
 *
 * Shuts every processor down, e.g. before the program exits. The
 * processors stay registered.
 */
void
agents_tracing_shutdown (void)
{
  each_processor (agents_tracing_processor_shutdown);
}
