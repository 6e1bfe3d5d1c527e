/* meta.json of a trace directory (include/mpicast/format.h, docs/json.md).
 *
 * The in-memory mc_meta owns copies of everything; communicators and sites
 * live in growable arrays with an id → index hash so that adding (which must
 * reject duplicates) and looking up stay O(1) for traces with many of them.
 * Reading validates every key and names it in the error, because meta.json
 * may be edited by hand or written by a run that crashed half-way.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "mpicast/format.h"
#include "mpicast/outfile.h"

/* ---------------------------------------------------------------- id index */

/* Open addressing, linear probing; slot value 0 = empty, else index + 1. */
typedef struct id_index {
    uint64_t *keys;
    size_t *slots;
    size_t cap; /* power of two, or 0 */
    size_t used;
} id_index;

static size_t hash_u64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

static void index_free(id_index *ix)
{
    free(ix->keys);
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

/* Returns the stored index of key, or SIZE_MAX. */
static size_t index_find(const id_index *ix, uint64_t key)
{
    if (ix->cap == 0)
        return SIZE_MAX;
    for (size_t i = hash_u64(key) & (ix->cap - 1);; i = (i + 1) & (ix->cap - 1)) {
        if (ix->slots[i] == 0)
            return SIZE_MAX;
        if (ix->keys[i] == key)
            return ix->slots[i] - 1;
    }
}

static void index_put_nogrow(id_index *ix, uint64_t key, size_t value)
{
    size_t i = hash_u64(key) & (ix->cap - 1);
    while (ix->slots[i] != 0)
        i = (i + 1) & (ix->cap - 1);
    ix->keys[i] = key;
    ix->slots[i] = value + 1;
    ix->used++;
}

/* Inserts key → value (key known to be absent); -1 on out of memory. */
static int index_put(id_index *ix, uint64_t key, size_t value)
{
    if (2 * (ix->used + 1) > ix->cap) {
        id_index bigger = {0};
        bigger.cap = ix->cap ? 2 * ix->cap : 16;
        bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
        bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
        if (!bigger.keys || !bigger.slots) {
            index_free(&bigger);
            return -1;
        }
        for (size_t i = 0; i < ix->cap; i++)
            if (ix->slots[i])
                index_put_nogrow(&bigger, ix->keys[i], ix->slots[i] - 1);
        index_free(ix);
        *ix = bigger;
    }
    index_put_nogrow(ix, key, value);
    return 0;
}

/* ---------------------------------------------------------------- object */

/* The free-form string keys, in the order meta.json lists them. */
static const char *const string_keys[] = {"command", "mpi_library", "timer", "mode", "start",
                                          "checked", "compressed", "threads"};
enum { NSTRING_KEYS = sizeof string_keys / sizeof string_keys[0] };

struct mc_meta {
    int nranks;
    char *strings[NSTRING_KEYS];
    mc_meta_comm *comms;
    size_t ncomms, comms_cap;
    id_index comm_ix;
    mc_meta_site *sites;
    size_t nsites, sites_cap;
    id_index site_ix;
};

static int string_key_index(const char *key)
{
    for (int i = 0; i < NSTRING_KEYS; i++)
        if (strcmp(key, string_keys[i]) == 0)
            return i;
    return -1;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Grows *arr (element size `elem`) so that one more fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 8;
    void *p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

mc_meta *mc_meta_create(int nranks)
{
    if (nranks < 0)
        return NULL;
    mc_meta *m = calloc(1, sizeof *m);
    if (m)
        m->nranks = nranks;
    return m;
}

void mc_meta_destroy(mc_meta *m)
{
    if (!m)
        return;
    for (int i = 0; i < NSTRING_KEYS; i++)
        free(m->strings[i]);
    for (size_t i = 0; i < m->ncomms; i++)
        free((void *)m->comms[i].members);
    free(m->comms);
    for (size_t i = 0; i < m->nsites; i++) {
        free((void *)m->sites[i].module);
        free((void *)m->sites[i].function);
        free((void *)m->sites[i].file);
    }
    free(m->sites);
    index_free(&m->comm_ix);
    index_free(&m->site_ix);
    free(m);
}

mc_err mc_meta_set(mc_meta *m, const char *key, const char *value, mc_error *err)
{
    int k = key ? string_key_index(key) : -1;
    if (k < 0)
        return mc_error_set(err, MC_ERR_USAGE, "meta: unknown key '%s'", key ? key : "(null)");
    char *copy = NULL;
    if (value && !(copy = dup_string(value)))
        return mc_error_set(err, MC_ERR_NOMEM, "meta: key '%s': out of memory", key);
    free(m->strings[k]);
    m->strings[k] = copy;
    return MC_OK;
}

const char *mc_meta_get(const mc_meta *m, const char *key)
{
    int k = key ? string_key_index(key) : -1;
    return k < 0 ? NULL : m->strings[k];
}

mc_err mc_meta_copy_strings(mc_meta *dst, const mc_meta *src, mc_error *err)
{
    for (int i = 0; i < NSTRING_KEYS; i++)
        if (src->strings[i]) {
            mc_err rc = mc_meta_set(dst, string_keys[i], src->strings[i], err);
            if (rc)
                return rc;
        }
    return MC_OK;
}

int mc_meta_nranks(const mc_meta *m) { return m->nranks; }

mc_err mc_meta_add_comm(mc_meta *m, uint64_t id, const int32_t *members, int32_t size,
                        int32_t local_size, mc_error *err)
{
    if (size < 0 || (size > 0 && !members) || local_size < 0 || local_size > size)
        return mc_error_set(err, MC_ERR_USAGE,
                            "meta: communicator %" PRIu64 ": bad size %d / local size %d",
                            id, (int)size, (int)local_size);
    for (int32_t i = 0; i < size; i++)
        if (members[i] < 0 || (m->nranks > 0 && members[i] >= m->nranks))
            return mc_error_set(err, MC_ERR_USAGE,
                                "meta: communicator %" PRIu64 ": member %d is not a rank of 0..%d",
                                id, (int)members[i], m->nranks - 1);
    if (index_find(&m->comm_ix, id) != SIZE_MAX)
        return MC_OK;
    int32_t *copy = malloc(size > 0 ? (size_t)size * sizeof *copy : 1);
    if (!copy || grow((void **)&m->comms, &m->comms_cap, m->ncomms, sizeof *m->comms) ||
        index_put(&m->comm_ix, id, m->ncomms)) {
        free(copy);
        return mc_error_set(err, MC_ERR_NOMEM, "meta: out of memory");
    }
    if (size > 0)
        memcpy(copy, members, (size_t)size * sizeof *copy);
    m->comms[m->ncomms++] = (mc_meta_comm){id, size, local_size, copy};
    return MC_OK;
}

size_t mc_meta_ncomms(const mc_meta *m) { return m->ncomms; }

const mc_meta_comm *mc_meta_comm_at(const mc_meta *m, size_t i)
{
    return i < m->ncomms ? &m->comms[i] : NULL;
}

const mc_meta_comm *mc_meta_comm_find(const mc_meta *m, uint64_t id)
{
    size_t i = index_find(&m->comm_ix, id);
    return i == SIZE_MAX ? NULL : &m->comms[i];
}

mc_err mc_meta_add_site(mc_meta *m, const mc_meta_site *site, mc_error *err)
{
    if (!site || site->id < 0)
        return mc_error_set(err, MC_ERR_USAGE, "meta: site id %d is negative",
                            site ? (int)site->id : -1);
    uint64_t key = (uint64_t)(uint32_t)site->id;
    if (index_find(&m->site_ix, key) != SIZE_MAX)
        return MC_OK;
    mc_meta_site s = *site;
    s.module = dup_string(site->module ? site->module : "");
    s.function = dup_string(site->function ? site->function : "");
    s.file = dup_string(site->file ? site->file : "");
    if (!s.module || !s.function || !s.file ||
        grow((void **)&m->sites, &m->sites_cap, m->nsites, sizeof *m->sites) ||
        index_put(&m->site_ix, key, m->nsites)) {
        free((void *)s.module);
        free((void *)s.function);
        free((void *)s.file);
        return mc_error_set(err, MC_ERR_NOMEM, "meta: out of memory");
    }
    m->sites[m->nsites++] = s;
    return MC_OK;
}

size_t mc_meta_nsites(const mc_meta *m) { return m->nsites; }

const mc_meta_site *mc_meta_site_at(const mc_meta *m, size_t i)
{
    return i < m->nsites ? &m->sites[i] : NULL;
}

const mc_meta_site *mc_meta_site_find(const mc_meta *m, int32_t id)
{
    size_t i = id < 0 ? SIZE_MAX : index_find(&m->site_ix, (uint64_t)(uint32_t)id);
    return i == SIZE_MAX ? NULL : &m->sites[i];
}

/* ---------------------------------------------------------------- write */

/* Communicator ids print as "<seq>.<leader>" (the two halves of the id), the
 * form `mpicast dump` uses, so a reader can match them by eye. */
static void comm_id_string(char *buf, size_t len, uint64_t id)
{
    snprintf(buf, len, "%" PRIu64 ".%" PRIu64, id >> 32, (uint64_t)(id & 0xffffffffu));
}

/* A JSON string of `s`; jansson refuses invalid UTF-8 (a command line may
 * hold Latin-1 bytes), so such bytes become '?' rather than failing the write. */
static json_t *json_text(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    char *copy = dup_string(s);
    if (!copy)
        return NULL;
    for (char *c = copy; *c; c++)
        if ((unsigned char)*c >= 0x80)
            *c = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

/* json_object_set_new that tolerates a NULL value (allocation failure) by
 * reporting it, so the builders below stay linear. */
static int set_new(json_t *obj, const char *key, json_t *value)
{
    return value ? json_object_set_new(obj, key, value) : -1;
}

static json_t *comm_to_json(const mc_meta_comm *c)
{
    char id[48];
    comm_id_string(id, sizeof id, c->id);
    json_t *o = json_object(), *members = json_array();
    int bad = !o || !members;
    for (int32_t i = 0; !bad && i < c->size; i++)
        bad = json_array_append_new(members, json_integer(c->members[i])) != 0;
    if (bad) {
        json_decref(o);
        json_decref(members);
        return NULL;
    }
    bad |= set_new(o, "id", json_string(id));
    bad |= set_new(o, "members", members);
    bad |= set_new(o, "local_size", json_integer(c->local_size));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *site_to_json(const mc_meta_site *s)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = set_new(o, "id", json_integer(s->id));
    bad |= set_new(o, "module", json_text(s->module));
    /* Offsets are below 2^63 in any real module; larger ones go as hex text. */
    if (s->offset <= (uint64_t)INT64_MAX) {
        bad |= set_new(o, "offset", json_integer((json_int_t)s->offset));
    } else {
        char hex[24];
        snprintf(hex, sizeof hex, "0x%" PRIx64, s->offset);
        bad |= set_new(o, "offset", json_string(hex));
    }
    bad |= set_new(o, "function", json_text(s->function));
    bad |= set_new(o, "file", json_text(s->file));
    bad |= set_new(o, "line", json_integer(s->line));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *meta_to_json(const mc_meta *m)
{
    json_t *root = json_object(), *comms = json_array(), *sites = json_array();
    int bad = !root || !comms || !sites;
    if (!bad) {
        bad |= set_new(root, "format_version", json_integer(MC_FORMAT_VERSION));
        bad |= set_new(root, "ranks", json_integer(m->nranks));
        for (int i = 0; i < NSTRING_KEYS; i++)
            if (m->strings[i])
                bad |= set_new(root, string_keys[i], json_text(m->strings[i]));
    }
    for (size_t i = 0; !bad && i < m->ncomms; i++)
        bad |= json_array_append_new(comms, comm_to_json(&m->comms[i]));
    for (size_t i = 0; !bad && i < m->nsites; i++)
        bad |= json_array_append_new(sites, site_to_json(&m->sites[i]));
    if (!bad) {
        bad |= json_object_set(root, "communicators", comms);
        bad |= json_object_set(root, "sites", sites);
    }
    json_decref(comms);
    json_decref(sites);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Writes `doc` to a temporary made by mkstemp in the trace directory and
 * renames it over `path`: a reader never sees a half-written meta.json
 * (rank 0 may be killed during finalize), no predictable name can be
 * planted beforehand, and a symlink at `path` is replaced, not followed. */
static mc_err write_atomically(const json_t *doc, const char *path, unsigned flags,
                               mc_error *err)
{
    mc_out o;
    mc_err rc = mc_out_open(&o, path, flags, err);
    if (rc != MC_OK)
        return rc;
    errno = 0;
    int ok = json_dumpf(doc, o.f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
             fputc('\n', o.f) != EOF && fflush(o.f) == 0 && (o.direct || fsync(o.fd) == 0);
    if (!ok) {
        int saved = errno;
        mc_out_abort(&o);
        return mc_error_set(err, MC_ERR_IO, "%s: write failed: %s", path,
                            saved ? strerror(saved) : "unknown error");
    }
    return mc_out_commit(&o, err);
}

mc_err mc_meta_write_as(const mc_meta *m, const char *dir, unsigned flags, mc_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/meta.json", dir) >= sizeof path)
        return mc_error_set(err, MC_ERR_IO, "%s: path too long", dir);
    if (m->nranks < 1) /* readers would refuse it */
        return mc_error_set(err, MC_ERR_USAGE, "%s: cannot write a trace of %d ranks", path,
                            m->nranks);
    json_t *doc = meta_to_json(m);
    if (!doc)
        return mc_error_set(err, MC_ERR_NOMEM, "%s: out of memory", path);
    mc_err rc = write_atomically(doc, path, flags, err);
    json_decref(doc);
    return rc;
}

mc_err mc_meta_write(const mc_meta *m, const char *dir, mc_error *err)
{
    return mc_meta_write_as(m, dir, 0, err);
}

/* ---------------------------------------------------------------- read */

/* Parsing context: the file name for messages and the error sink. */
typedef struct meta_parse {
    const char *path;
    mc_error *err;
} meta_parse;

static mc_err bad_key(meta_parse *p, const char *key, const char *what)
{
    return mc_error_set(p->err, MC_ERR_FORMAT, "%s: key '%s': %s", p->path, key, what);
}

/* Integer field in [lo, hi]; `required` = absence is an error (else *out
 * keeps its value). */
static mc_err get_int(meta_parse *p, json_t *obj, const char *key, const char *where,
                      int required, json_int_t lo, json_int_t hi, json_int_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? bad_key(p, where, "missing") : MC_OK;
    if (!json_is_integer(v))
        return bad_key(p, where, "not an integer");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) {
        char what[96];
        snprintf(what, sizeof what, "%lld is outside %lld..%lld", (long long)x,
                 (long long)lo, (long long)hi);
        return bad_key(p, where, what);
    }
    *out = x;
    return MC_OK;
}

/* String field; absent → *out unchanged (or an error if required). */
static mc_err get_string(meta_parse *p, json_t *obj, const char *key, const char *where,
                         int required, const char **out)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return required ? bad_key(p, where, "missing") : MC_OK;
    if (!json_is_string(v))
        return bad_key(p, where, "not a string");
    *out = json_string_value(v);
    return MC_OK;
}

/* Parses "<seq>.<leader>" (each half below 2^32) or a JSON integer id. */
static int parse_comm_id(json_t *v, uint64_t *id)
{
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            return -1;
        *id = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_string(v))
        return -1;
    const char *s = json_string_value(v);
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    unsigned long long seq = strtoull(s, &end, 10);
    if (*end != '.' || end[1] < '0' || end[1] > '9')
        return -1;
    unsigned long long leader = strtoull(end + 1, &end, 10);
    if (*end || errno || seq > 0xffffffffull || leader > 0xffffffffull)
        return -1;
    *id = (uint64_t)seq << 32 | leader;
    return 0;
}

static mc_err read_comm(meta_parse *p, mc_meta *m, json_t *c, size_t i)
{
    char where[96];
    snprintf(where, sizeof where, "communicators[%zu]", i);
    if (!json_is_object(c))
        return bad_key(p, where, "not an object");
    snprintf(where, sizeof where, "communicators[%zu].id", i);
    json_t *idv = json_object_get(c, "id");
    uint64_t id;
    if (!idv)
        return bad_key(p, where, "missing");
    if (parse_comm_id(idv, &id) != 0)
        return bad_key(p, where, "not \"<seq>.<leader>\" nor a non-negative integer");
    if (mc_meta_comm_find(m, id))
        return bad_key(p, where, "duplicate communicator id");
    snprintf(where, sizeof where, "communicators[%zu].members", i);
    json_t *mv = json_object_get(c, "members");
    if (!mv)
        return bad_key(p, where, "missing");
    if (!json_is_array(mv))
        return bad_key(p, where, "not an array");
    size_t n = json_array_size(mv);
    if (n > (size_t)m->nranks)
        return bad_key(p, where, "more members than ranks");
    int32_t *members = malloc(n ? n * sizeof *members : 1);
    if (!members)
        return mc_error_set(p->err, MC_ERR_NOMEM, "%s: out of memory", p->path);
    for (size_t k = 0; k < n; k++) {
        json_t *r = json_array_get(mv, k);
        if (!json_is_integer(r) || json_integer_value(r) < 0 ||
            json_integer_value(r) >= m->nranks) {
            free(members);
            snprintf(where, sizeof where, "communicators[%zu].members[%zu]", i, k);
            return bad_key(p, where, "not a rank of the trace");
        }
        members[k] = (int32_t)json_integer_value(r);
    }
    json_int_t local = (json_int_t)n;
    snprintf(where, sizeof where, "communicators[%zu].local_size", i);
    mc_err rc = get_int(p, c, "local_size", where, 0, 0, (json_int_t)n, &local);
    if (rc == MC_OK)
        rc = mc_meta_add_comm(m, id, members, (int32_t)n, (int32_t)local, p->err);
    free(members);
    return rc;
}

static mc_err read_site_offset(meta_parse *p, json_t *s, const char *where, uint64_t *out)
{
    json_t *v = json_object_get(s, "offset");
    if (!v)
        return MC_OK;
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return MC_OK;
    }
    if (json_is_string(v)) {
        const char *t = json_string_value(v);
        char *end;
        errno = 0;
        unsigned long long x = strtoull(t, &end, 16);
        if (strncmp(t, "0x", 2) == 0 && t[2] && !*end && !errno) {
            *out = x;
            return MC_OK;
        }
    }
    return bad_key(p, where, "not a non-negative integer nor a \"0x...\" string");
}

static mc_err read_site(meta_parse *p, mc_meta *m, json_t *s, size_t i)
{
    char where[96];
    snprintf(where, sizeof where, "sites[%zu]", i);
    if (!json_is_object(s))
        return bad_key(p, where, "not an object");
    mc_meta_site site = {0, "", 0, "", "", 0};
    json_int_t id = 0, line = 0;
    mc_err rc;
    snprintf(where, sizeof where, "sites[%zu].id", i);
    if ((rc = get_int(p, s, "id", where, 1, 0, INT32_MAX, &id)))
        return rc;
    if (mc_meta_site_find(m, (int32_t)id))
        return bad_key(p, where, "duplicate site id");
    snprintf(where, sizeof where, "sites[%zu].module", i);
    if ((rc = get_string(p, s, "module", where, 0, &site.module)))
        return rc;
    snprintf(where, sizeof where, "sites[%zu].offset", i);
    if ((rc = read_site_offset(p, s, where, &site.offset)))
        return rc;
    snprintf(where, sizeof where, "sites[%zu].function", i);
    if ((rc = get_string(p, s, "function", where, 0, &site.function)))
        return rc;
    snprintf(where, sizeof where, "sites[%zu].file", i);
    if ((rc = get_string(p, s, "file", where, 0, &site.file)))
        return rc;
    snprintf(where, sizeof where, "sites[%zu].line", i);
    if ((rc = get_int(p, s, "line", where, 0, 0, INT_MAX, &line)))
        return rc;
    site.id = (int32_t)id;
    site.line = (int)line;
    return mc_meta_add_site(m, &site, p->err);
}

/* Reads an array-valued key with `one` applied to each element; an absent
 * key is an empty list (a run that crashed before finalize wrote none). */
static mc_err read_list(meta_parse *p, mc_meta *m, json_t *root, const char *key,
                        mc_err (*one)(meta_parse *, mc_meta *, json_t *, size_t))
{
    json_t *list = json_object_get(root, key);
    if (!list)
        return MC_OK;
    if (!json_is_array(list))
        return bad_key(p, key, "not an array");
    for (size_t i = 0; i < json_array_size(list); i++) {
        mc_err rc = one(p, m, json_array_get(list, i), i);
        if (rc)
            return rc;
    }
    return MC_OK;
}

static mc_meta *meta_from_json(meta_parse *p, json_t *root)
{
    if (!json_is_object(root)) {
        mc_error_set(p->err, MC_ERR_FORMAT, "%s: not a JSON object", p->path);
        return NULL;
    }
    json_t *ver = json_object_get(root, "format_version");
    if (!ver) {
        bad_key(p, "format_version", "missing");
        return NULL;
    }
    if (!json_is_integer(ver)) {
        bad_key(p, "format_version", "not an integer");
        return NULL;
    }
    if (json_integer_value(ver) != MC_FORMAT_VERSION) {
        mc_error_set(p->err, MC_ERR_VERSION,
                     "%s: key 'format_version': version %lld is not supported (this mpicast "
                     "reads version %d)",
                     p->path, (long long)json_integer_value(ver), MC_FORMAT_VERSION);
        return NULL;
    }
    json_int_t nranks = 0;
    if (get_int(p, root, "ranks", "ranks", 1, 1, INT32_MAX, &nranks))
        return NULL;
    mc_meta *m = mc_meta_create((int)nranks);
    if (!m) {
        mc_error_set(p->err, MC_ERR_NOMEM, "%s: out of memory", p->path);
        return NULL;
    }
    mc_err rc = MC_OK;
    for (int i = 0; rc == MC_OK && i < NSTRING_KEYS; i++) {
        const char *s = NULL;
        rc = get_string(p, root, string_keys[i], string_keys[i], 0, &s);
        if (rc == MC_OK && s)
            rc = mc_meta_set(m, string_keys[i], s, p->err);
    }
    if (rc == MC_OK)
        rc = read_list(p, m, root, "communicators", read_comm);
    if (rc == MC_OK)
        rc = read_list(p, m, root, "sites", read_site);
    if (rc != MC_OK) {
        mc_meta_destroy(m);
        return NULL;
    }
    return m;
}

mc_meta *mc_meta_read(const char *dir, mc_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/meta.json", dir) >= sizeof path) {
        mc_error_set(err, MC_ERR_IO, "%s: path too long", dir);
        return NULL;
    }
    FILE *f = mc_in_fopen(path, err); /* a FIFO or directory is refused, not waited on */
    if (!f)
        return NULL;
    json_error_t jerr;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
    int read_failed = ferror(f);
    fclose(f);
    if (!root) {
        if (read_failed)
            mc_error_set(err, MC_ERR_IO, "%s: read failed", path);
        else
            mc_error_set(err, MC_ERR_FORMAT, "%s:%d:%d: %s", path, jerr.line, jerr.column,
                         jerr.text);
        return NULL;
    }
    meta_parse p = {path, err};
    mc_meta *m = meta_from_json(&p, root);
    json_decref(root);
    return m;
}
