// When a setting applies: the page's one reading of a spec's `used_when`.
//
// Python's spec gives each field that only some settings use a condition,
// {field: [values]}, which the build writes into the form as the field box's
// data-lab-used-when. It holds when every field it names has one of its
// values, compared as JSON values are. Python's own reading is
// lab.core.params.field_used; tests/unit/lab/core/test_rules.py runs both on
// every condition of every spec, so the two cannot drift apart.

/**
 * Whether a field with condition `usedWhen` (null: always) applies when the
 * settings are `values` ({field: value}); a field missing from `values` is
 * null, as Python's values.get(field) is None.
 */
export function fieldUsed(usedWhen, values) {
  return Object.entries(usedWhen ?? {}).every(([other, allowed]) =>
    allowed.includes(values[other] ?? null),
  );
}
