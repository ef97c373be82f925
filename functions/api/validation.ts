/** JSON schema validation in Ironic's words, shared with the conductor's drivers from `#common/jsonschema`. */
export * from '#common/jsonschema';
