import { defineCollection } from 'astro:content';
import { docsLoader, i18nLoader } from '@astrojs/starlight/loaders';
import { docsSchema, i18nSchema } from '@astrojs/starlight/schema';

export const collections = {
  docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }),
  // The site's own wording of a few interface strings (src/content/i18n/en.json). Starlight reads this
  // collection on every page; declaring it also keeps the build from warning that it is missing.
  i18n: defineCollection({ loader: i18nLoader(), schema: i18nSchema() }),
};
