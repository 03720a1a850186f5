/** One bad key of a config: its path (`mcpServers.github.args`) and what is wrong with it. */
export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}
