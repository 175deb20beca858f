/*
 * json.h - a small JSON reader (RFC 8259) for the files smsim itself
 * writes: stats (--stats-json), validator output, sweep results.
 *
 * The whole document is parsed into a tree owned by one json_doc; values
 * are read-only views into it.  Numbers are doubles; strings are UTF-8
 * with escapes decoded (\uXXXX outside the BMP as surrogate pairs).  Object
 * keys keep their order; lookup is linear (the documents are small).
 * Nesting deeper than 256 levels is rejected.
 */
#ifndef SMSIM_CLI_JSON_H
#define SMSIM_CLI_JSON_H

#include <stddef.h>
#include "lib/smsim.h"

enum json_type { JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY,
                 JSON_OBJECT };

typedef struct json_value json_value;
typedef struct json_doc json_doc;

/* Parse text[0..len).  name is used in messages ("FILE:LINE:COL: ...").
 * Returns NULL with *err set (SMSIM_ERR_FORMAT) on malformed input. */
json_doc *json_parse(const char *text, size_t len, const char *name, smsim_error *err);
/* Read and parse a whole file (SMSIM_ERR_IO if it cannot be read). */
json_doc *json_load(const char *path, smsim_error *err);
void json_free(json_doc *d);

const json_value *json_root(const json_doc *d);
enum json_type json_type_of(const json_value *v);
/* Member of an object by key (NULL if v is not an object or lacks it). */
const json_value *json_get(const json_value *v, const char *key);
/* Elements of an array / members of an object (0 for other types). */
size_t json_len(const json_value *v);
const json_value *json_at(const json_value *v, size_t i);
/* Key of member i of an object (NULL otherwise). */
const char *json_key_at(const json_value *v, size_t i);
/* The number, or def if v is NULL or not a number. */
double json_num(const json_value *v, double def);
/* The string, or NULL if v is NULL or not a string. */
const char *json_str(const json_value *v);
/* json_get along a dotted-free path of keys: json_path(v, "a", "b", NULL). */
const json_value *json_path(const json_value *v, ...);

#endif /* SMSIM_CLI_JSON_H */
