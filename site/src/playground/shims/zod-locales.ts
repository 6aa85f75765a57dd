/**
 * zod's `locales` namespace, English only. zod registers English as its default itself; the other ~40
 * translations (a quarter of a megabyte) are never used by the renderer's config schema.
 */
export { default as en } from '../../../../node_modules/zod/v4/locales/en.js';
