/**
 * Loading the ASL files with their placeholders filled. The CDK stack and the local stack both go
 * through here, so they run the same definition.
 *
 * Placeholders are quoted strings, `"${NameKind}"`, so the files stay valid JSON. Numeric ones
 * (`...Seconds`) are replaced by numbers here; the others are left for the caller's string
 * substitution (CDK `definitionSubstitutions`, which resolves tokens such as ARNs).
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

export const STEPS_ASL_FILE = join(HERE, 'steps.asl.json');

export interface StepsNumbers {
  /** How long an async step may go without an agent heartbeat before it fails. */
  readonly HeartbeatSeconds: number;
  /** The longest an async step may wait in total (Ironic's deploy_callback_timeout). */
  readonly CallbackTimeoutSeconds: number;
  /** The longest one synchronous step invocation may take. */
  readonly StepTimeoutSeconds: number;
}

export interface StepsStrings {
  readonly ConductorFunctionArn: string;
}

const PLACEHOLDER = /"\$\{([A-Za-z]+)\}"/g;
const INNER_PLACEHOLDER = /\$\{([A-Za-z]+)\}/g;

/** Names of every placeholder in an ASL text. */
export function placeholders(text: string): Set<string> {
  return new Set([...text.matchAll(INNER_PLACEHOLDER)].map((m) => m[1] as string));
}

/** Replace the numeric placeholders by numbers; string placeholders stay for the caller. */
export function fillNumbers(text: string, numbers: Readonly<Record<string, number>>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = numbers[name];
    if (value === undefined) return whole;
    if (!Number.isInteger(value) || value <= 0) throw new Error(`ASL placeholder ${name} must be a positive integer, got ${value}`);
    return String(value);
  });
}

/** Replace string placeholders (inside any string) by their values. */
export function fillStrings(text: string, strings: Readonly<Record<string, string>>): string {
  return text.replace(INNER_PLACEHOLDER, (whole, name: string) => strings[name] ?? whole);
}

export function readStepsAsl(): string {
  return readFileSync(STEPS_ASL_FILE, 'utf8');
}

/** The steps definition ready to run (local stack): every placeholder filled, or an error naming the rest. */
export function renderStepsDefinition(numbers: StepsNumbers, strings: StepsStrings): string {
  const text = fillStrings(fillNumbers(readStepsAsl(), { ...numbers }), { ...strings });
  const left = placeholders(text);
  if (left.size > 0) throw new Error(`ASL placeholders without a value: ${[...left].join(', ')}`);
  return text;
}
