/** Printers shared by the commands: aligned tables and JSON. */

/** A table column: its heading and how to read a cell from a row. */
export interface Column<Row> {
  readonly heading: string;
  readonly cell: (row: Row) => string;
  /** Right-align (numbers). */
  readonly right?: boolean;
}

/** Renders rows as a plain-text table with a heading line, columns padded to fit. */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const cells = rows.map((row) => columns.map((column) => column.cell(row)));
  const widths = columns.map((column, index) =>
    Math.max(column.heading.length, ...cells.map((line) => displayWidth(line[index] ?? ''))),
  );
  const render = (line: readonly string[]): string =>
    line
      .map((text, index) => {
        const pad = ' '.repeat(Math.max(0, (widths[index] ?? 0) - displayWidth(text)));
        return columns[index]?.right === true ? pad + text : text + pad;
      })
      .join('  ')
      .trimEnd();
  return [render(columns.map((column) => column.heading)), ...cells.map(render)].join('\n');
}

/** Pretty JSON with a trailing newline. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function displayWidth(text: string): number {
  return [...text].length;
}

/** A hint as a table cell: `yes`, `no`, or `-` when unknown; `*` marks a value not declared. */
export function hintCell(value: unknown, marker = ''): string {
  if (value === true) return `yes${marker}`;
  if (value === false) return `no${marker}`;
  return '-';
}
