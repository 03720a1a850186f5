import { addToolAnnotation } from './add-tool-annotation.js';
import { buildToolset } from './build-toolset.js';
import type { MetaTool } from './define.js';
import { deleteToolset } from './delete-toolset.js';
import { equipToolset } from './equip-toolset.js';
import { getActiveToolset } from './get-active-toolset.js';
import { listAvailableTools } from './list-available-tools.js';
import { listSavedToolsets } from './list-saved-toolsets.js';
import { unequipToolset } from './unequip-toolset.js';

/** Every meta tool, in the order tools/list shows them. */
export const META_TOOLS: readonly MetaTool[] = [
  listAvailableTools,
  buildToolset,
  equipToolset,
  unequipToolset,
  listSavedToolsets,
  deleteToolset,
  getActiveToolset,
  addToolAnnotation,
];

/** The meta tools by name. */
export const META_TOOLS_BY_NAME: ReadonlyMap<string, MetaTool> = new Map(
  META_TOOLS.map((tool) => [tool.name, tool]),
);
