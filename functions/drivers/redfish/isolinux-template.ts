/**
 * Ironic's `[DEFAULT]isolinux_config_template`: the operator's own isolinux.cfg template, rendered
 * with the variables Ironic's `images._generate_cfg` gives it — `kernel` (`/vmlinuz`), `ramdisk`
 * (`/initrd`) and `kernel_params` (the kernel command line). Ironic renders it with Jinja2; the
 * templates isolinux needs only substitute those variables, so Ironless renders `{{ name }}` and
 * refuses anything else (statements, comments, filters, other names) when the stack is built,
 * rather than writing a configuration the legacy firmware would trip on.
 */

/** The variables a template may name. */
export const ISOLINUX_TEMPLATE_VARIABLES = ['kernel', 'ramdisk', 'kernel_params'] as const;
export type IsolinuxTemplateVariables = Readonly<Record<(typeof ISOLINUX_TEMPLATE_VARIABLES)[number], string>>;

const EXPRESSION = /\{\{\s*(.*?)\s*\}\}/g;

/** What is wrong with a template, or undefined when Ironless can render it. */
export function isolinuxTemplateProblem(template: string): string | undefined {
  if (/\{%|\{#/.test(template)) return 'it uses Jinja2 statements ({% %}) or comments ({# #}), which Ironless does not render';
  const names = [...template.matchAll(EXPRESSION)].map((m) => m[1] ?? '');
  const unknown = names.find((name) => !(ISOLINUX_TEMPLATE_VARIABLES as readonly string[]).includes(name));
  if (unknown !== undefined) {
    return `it uses {{ ${unknown} }}; only ${ISOLINUX_TEMPLATE_VARIABLES.map((v) => `{{ ${v} }}`).join(', ')} are rendered`;
  }
  if (/\{\{|\}\}/.test(template.replace(EXPRESSION, ''))) return 'it has a {{ or }} that does not enclose a variable';
  if (!names.includes('kernel')) return 'it never names {{ kernel }}: isolinux would have no kernel to boot';
  return undefined;
}

/** Render a template `isolinuxTemplateProblem` accepted; as Jinja2 does, one trailing newline is dropped. */
export function renderIsolinuxTemplate(template: string, variables: IsolinuxTemplateVariables): string {
  const rendered = template.replace(EXPRESSION, (_all, name: string) => variables[name as keyof IsolinuxTemplateVariables] ?? '');
  return rendered.endsWith('\n') ? rendered.slice(0, -1) : rendered;
}
