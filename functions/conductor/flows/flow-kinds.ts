/**
 * The three step flows and where each keeps its state on the node, as Ironic names them
 * (`driver_internal_info.deploy_steps`, `deploy_step_index`, the node's `deploy_step`, …).
 */
import * as st from '#common/states';
import type { FlowName } from '../context';

export interface FlowKind {
  readonly name: FlowName;
  /** Node field showing the current step. */
  readonly stepField: 'deploy_step' | 'clean_step' | 'service_step';
  /** `driver_internal_info` keys for the step list and the index of the current step. */
  readonly stepsKey: string;
  readonly indexKey: string;
  /** States in which the flow is running (the steps machine may act on the node). */
  readonly activeStates: readonly string[];
  /** The state the node waits in while an async step runs. */
  readonly waitState: string;
  /** Word used in messages: "Deploy step deploy.deploy failed …". */
  readonly label: string;
  /** What Ironic names the flow's ramdisk logs after (`…_cleaning_<time>.tar.gz`); none for a deploy. */
  readonly ramdiskLogsLabel: string | undefined;
}

export const FLOWS: Readonly<Record<FlowName, FlowKind>> = {
  deploy: {
    name: 'deploy',
    stepField: 'deploy_step',
    stepsKey: 'deploy_steps',
    indexKey: 'deploy_step_index',
    activeStates: [st.DEPLOYING, st.DEPLOYWAIT],
    waitState: st.DEPLOYWAIT,
    label: 'Deploy',
    ramdiskLogsLabel: undefined,
  },
  clean: {
    name: 'clean',
    stepField: 'clean_step',
    stepsKey: 'clean_steps',
    indexKey: 'clean_step_index',
    activeStates: [st.CLEANING, st.CLEANWAIT],
    waitState: st.CLEANWAIT,
    label: 'Clean',
    ramdiskLogsLabel: 'cleaning',
  },
  service: {
    name: 'service',
    stepField: 'service_step',
    stepsKey: 'service_steps',
    indexKey: 'service_step_index',
    activeStates: [st.SERVICING, st.SERVICEWAIT],
    waitState: st.SERVICEWAIT,
    label: 'Service',
    ramdiskLogsLabel: 'service',
  },
};

/** Keys of `driver_internal_info` that live only as long as a steps execution. */
export const EXECUTION_KEYS: readonly string[] = [
  'steps_execution',
  'steps_owner',
  'steps_task_token',
  'steps_boot_agent',
  'manual_cleaning',
  'deployment_reboot',
  'cleaning_reboot',
  'servicing_reboot',
  'requested_deploy_steps',
  'requested_clean_steps',
  'requested_service_steps',
];
