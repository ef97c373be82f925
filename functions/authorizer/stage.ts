/** The policy resource of an authorizer decision (kept apart from the entry so tests import it without its cold start). */

/** Every method and resource of the stage the request came through: API Gateway caches the decision per header, for any route. */
export function stageResources(methodArn: string): string {
  const slash = methodArn.indexOf('/');
  if (slash < 0) return methodArn;
  const stage = methodArn.slice(slash + 1).split('/')[0] ?? '*';
  return `${methodArn.slice(0, slash)}/${stage}/*/*`;
}
