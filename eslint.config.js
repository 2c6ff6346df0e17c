// ESLint 9 flat config: typescript-eslint's recommended rules plus the type-aware rules that catch
// real bugs in an async codebase (unhandled promises, promises where a callback returns void,
// throwing non-Errors). Layer rules are checked by dependency-cruiser (`npm run lint:layers`);
// formatting by Prettier (`npm run format:check`).
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    // examples/ is user code outside every tsconfig; packages/ are one-line re-exports.
    ignores: ["dist/", "dist-bench/", "node_modules/", "**/.sluice/", "packages/", "examples/"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // `any` is deliberate in the SDK's generic handler and task signatures (23 uses).
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    ignores: ["src/ui/**"],
    languageOptions: {
      parserOptions: { project: ["./tsconfig.test.json"], tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ["src/ui/**/*.ts", "src/ui/**/*.tsx"],
    languageOptions: {
      globals: { ...globals.browser },
      parserOptions: { project: ["./src/ui/tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
    },
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/await-thenable": "error",
      "@typescript-eslint/only-throw-error": "error",
    },
  },
  {
    // Tool configs outside every tsconfig: no type information.
    files: ["*.config.ts", "src/ui/vite.config.ts"],
    ...tseslint.configs.disableTypeChecked,
  },
);
