/**
 * The interfaces a clean, service or deploy step (and a runbook's or deploy template's step) may
 * name: Ironic master's CLEANING_INTERFACE_PRIORITY and DEPLOYING_INTERFACE_PRIORITY, in their
 * order, which its jsonschema errors print. Vendor (fake-hardware's log_passthrough) and firmware
 * (its `update`) joined them in 2023.2; 21.4 named power, management, deploy, bios and raid only.
 */
export const STEP_INTERFACES = ['vendor', 'power', 'management', 'firmware', 'deploy', 'bios', 'raid'] as const;
