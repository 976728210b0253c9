/** Branches of the repository holding a folder, through the built-in Git extension's API (vscode.git,
 * API version 1). Only the few members used here are declared. */

import * as vscode from "vscode";
import type { Branch } from "./baseBranch";

const enum RefType {
  Head = 0,
  RemoteHead = 1,
}

interface Ref {
  readonly type: number;
  readonly name?: string;
}

interface Repository {
  readonly rootUri: vscode.Uri;
  readonly state: { readonly HEAD?: { readonly name?: string }; readonly refs?: Ref[] };
  getRefs?(query: { pattern?: string }): Promise<Ref[]>;
}

interface GitApi {
  getRepository(uri: vscode.Uri): Repository | null;
}

interface GitExtension {
  readonly enabled: boolean;
  getAPI(version: 1): GitApi;
}

export interface RepositoryBranches {
  branches: Branch[];
  current: string | undefined;
}

/** The branches of the repository at `folder`, or undefined when the Git extension cannot say. */
export async function repositoryBranches(folder: vscode.Uri): Promise<RepositoryBranches | undefined> {
  const extension = vscode.extensions.getExtension<GitExtension>("vscode.git");
  if (extension === undefined) {
    return undefined;
  }
  const git = extension.isActive ? extension.exports : await extension.activate();
  if (!git.enabled) {
    return undefined;
  }
  const repository = git.getAPI(1).getRepository(folder);
  if (repository === null) {
    return undefined;
  }
  const refs = repository.getRefs ? await repository.getRefs({}) : (repository.state.refs ?? []);
  const branches = refs
    .filter((ref) => ref.name !== undefined && (ref.type === RefType.Head || ref.type === RefType.RemoteHead))
    .map((ref) => ({ name: ref.name ?? "", remote: ref.type === RefType.RemoteHead }));
  return { branches, current: repository.state.HEAD?.name };
}
