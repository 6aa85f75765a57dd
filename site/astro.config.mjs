// @ts-check
// The toolyard site: Starlight docs, generated reference pages, the in-browser playground and the chart
// repository. Everything it serves is built here; nothing is fetched at build or run time.

import { readdirSync } from 'node:fs';
import starlight from '@astrojs/starlight';
import { defineConfig, passthroughImageService } from 'astro/config';

const nodeModules = new URL('../node_modules/', import.meta.url);
/** Packages of which astro or an @astrojs package keeps its own, nested version. */
const nestedDependencies = [
  ...new Set(
    [
      'astro',
      '@astrojs/starlight',
      '@astrojs/internal-helpers',
      '@astrojs/markdown-remark',
      '@astrojs/mdx',
    ].flatMap((pkg) => {
      try {
        return readdirSync(new URL(`${pkg}/node_modules/`, nodeModules)).filter(
          (name) => !name.startsWith('.'),
        );
      } catch {
        return [];
      }
    }),
  ),
];

export default defineConfig({
  site: 'https://toolyard.dev',
  trailingSlash: 'always',
  // No image optimisation: keeps sharp (a native download) out of the build.
  image: { service: passthroughImageService() },
  devToolbar: { enabled: false },
  // Astro's prerender bundle is imported from site/dist/, where bare imports resolve against the repository
  // root: the root holds other versions of some of astro's dependencies (cookie@0.7 and js-yaml@3 for
  // other tools). Bundling astro's own nested copies keeps each resolution inside astro's tree.
  vite: {
    ssr: { noExternal: nestedDependencies },
    environments: { prerender: { resolve: { noExternal: nestedDependencies } } },
  },
  integrations: [
    starlight({
      title: 'toolyard',
      description:
        'A governed home for containerized AI agents’ project tools on Kubernetes: one spec to backends, toolchain sidecars, MCP gateways, RBAC and NetworkPolicies.',
      customCss: ['./src/styles/site.css'],
      // Wrapped lines: a code block never becomes a horizontally scrolling region keyboard users cannot reach.
      expressiveCode: { defaultProps: { wrap: true } },
      lastUpdated: false,
      pagination: true,
      sidebar: [
        {
          label: 'Start here',
          items: [
            { label: 'The boundary: backends, toolchains, gateways', slug: 'start-here/concepts' },
            { label: 'Quick start (5 minutes)', slug: 'start-here/quick-start' },
            { label: 'Playground', link: '/playground/' },
          ],
        },
        {
          label: 'Guides',
          items: [
            { slug: 'guides/gitops-cdk8s' },
            { slug: 'guides/review-and-fleet' },
            { slug: 'guides/helm-chart' },
            { slug: 'guides/backend-images' },
            { slug: 'guides/bring-your-own-toolchain-image' },
            // docs/security-model.md, generated (site/scripts/generate.ts IN_MAIN_NAVIGATION).
            { slug: 'in-depth/security-model', label: 'Security model' },
            { slug: 'guides/network-model' },
          ],
        },
        { label: 'Reference', items: [{ autogenerate: { directory: 'reference' } }] },
        { label: 'In depth', collapsed: true, items: [{ autogenerate: { directory: 'in-depth' } }] },
        { label: 'Examples', items: [{ autogenerate: { directory: 'examples' } }] },
      ],
    }),
  ],
});
