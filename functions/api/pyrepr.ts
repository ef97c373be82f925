/** Python's repr() of JSON values, for messages; shared with the conductor from `#common/pyrepr`. */
export { pyRepr, pyString } from '#common/pyrepr';
