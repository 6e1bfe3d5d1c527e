/* Reading the simulator's Chrome timeline back (report, --timeline-otf2)
 * without holding the whole JSON document: src/sim/timeline.c writes one
 * event object per line, so each line is parsed on its own; a file in any
 * other layout is parsed whole. */
#define MPICAST_EXPORT_INTERNAL
#include "export_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static int visit(json_t *e, tl_slice_fn fn, void *ctx)
{
    const char *ph = json_string_value(json_object_get(e, "ph"));
    const char *name = json_string_value(json_object_get(e, "name"));
    const char *cat = json_string_value(json_object_get(e, "cat"));
    json_t *tid = json_object_get(e, "tid");
    if (!ph || strcmp(ph, "X") != 0 || !name || !cat || !json_is_integer(tid))
        return 0;
    return fn(ctx, name, cat, (int)json_integer_value(tid), json_number_value(json_object_get(e, "ts")),
              json_number_value(json_object_get(e, "dur")));
}

static int whole(FILE *in, tl_slice_fn fn, void *ctx, mc_error *err)
{
    json_error_t je;
    rewind(in);
    json_t *doc = json_loadf(in, 0, &je);
    if (!doc)
        return mc_error_set(err, MC_ERR_FORMAT, "timeline:%d: %s", je.line, je.text), -1;
    json_t *evs = json_object_get(doc, "traceEvents");
    int rc = 0;
    for (size_t i = 0; !rc && i < json_array_size(evs); i++)
        rc = visit(json_array_get(evs, i), fn, ctx);
    json_decref(doc);
    return rc;
}

int tl_each_slice(FILE *in, tl_slice_fn fn, void *ctx, mc_error *err)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int rc = 0, objects = 0, lines = 0;
    rewind(in);
    while (!rc && (len = getline(&line, &cap, in)) > 0) {
        lines++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ',' || line[len - 1] == ' '))
            line[--len] = 0;
        char *start = line;
        if (*start == ',')
            start++;
        if (*start != '{' || len < 2 || line[len - 1] != '}')
            continue;
        json_t *e = json_loads(start, 0, NULL);
        if (!e)
            continue;
        objects++;
        rc = visit(e, fn, ctx);
        json_decref(e);
    }
    free(line);
    if (rc)
        return rc;
    if (objects == 0 && lines > 0) /* not the one-event-per-line layout */
        return whole(in, fn, ctx, err);
    return 0;
}
