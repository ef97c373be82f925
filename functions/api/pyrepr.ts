/** Python's repr() of JSON values, for messages; shared with the conductor from `#common/pyrepr`. */
export { pyPformat, pyRepr, pyStr, pyString, pyTruthy } from '#common/pyrepr';
