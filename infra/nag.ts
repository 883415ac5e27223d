import { CfnElement, Names, type NestedStack, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag 3 suppressions are CDK acknowledgments: each finding id (e.g.
 * `AwsSolutions-IAM5[Resource::*]`) is acknowledged on the construct or an ancestor.
 */
export function acknowledge(scopes: IConstruct | IConstruct[], reason: string, ...ids: string[]): void {
  for (const scope of [scopes].flat()) for (const id of ids) Validations.of(scope).acknowledge({ id, reason });
}

/**
 * A value as cdk-nag prints it in finding ids: resolved, then flattened the way its
 * flattenCfnReference does (`{Ref: X}` → `<X>`, `{Fn::GetAtt: [R, A]}` → `<R.A>`).
 */
export function flattenForNag(scope: IConstruct, value: string): string {
  const stack = Stack.of(scope);
  const parent = stack.nestedStackParent;
  const elementOf = (owner: Stack, logicalId: string) =>
    owner.node
      .findAll()
      .find(
        (c): c is CfnElement =>
          CfnElement.isCfnElement(c) && Stack.of(c) === owner && owner.getLogicalId(c) === logicalId,
      );
  // A value of the parent arrives in a nested stack as a parameter named after the referenced
  // construct's unique id (`referenceto<unique id><attribute>`); a value of a nested stack arrives
  // in its parent as an output of it (`<nested stack resource>.Outputs.<unique id><attribute>`).
  const reference = (logicalId: string, attribute: string | undefined): string => {
    if (logicalId.startsWith('AWS::') || elementOf(stack, logicalId))
      return attribute === undefined ? `<${logicalId}>` : `<${logicalId}.${attribute}>`;
    const fromParent = parent && elementOf(parent, logicalId);
    if (fromParent) return `<referenceto${Names.uniqueId(fromParent)}${attribute ?? 'Ref'}>`;
    for (const child of stack.node.findAll()) {
      if (!(child instanceof Stack) || child.nestedStackParent !== stack) continue;
      const element = elementOf(child, logicalId);
      const resource = (child as NestedStack).nestedStackResource;
      if (element && resource)
        return `<${stack.getLogicalId(resource)}.Outputs.${Names.uniqueId(element)}${attribute ?? 'Ref'}>`;
    }
    return attribute === undefined ? `<${logicalId}>` : `<${logicalId}.${attribute}>`;
  };
  const visit = (node: unknown): string => {
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    const fn = node as Record<string, unknown>;
    if (fn['Fn::Join']) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(visit).join(delimiter);
    }
    if (fn['Fn::GetAtt']) {
      const [resource, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return reference(visit(resource), visit(attribute));
    }
    if (fn.Ref) return reference(visit(fn.Ref), undefined);
    return JSON.stringify(node);
  };
  return visit(stack.resolve(value));
}

/** Id of the IAM5 finding for a wildcard resource (value may hold tokens). */
export function wildcardResourceFinding(scope: IConstruct, value: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenForNag(scope, value)}]`;
}

/** Id of the IAM4 finding for an AWS-managed policy (the partition is a literal in env-specific stacks). */
export function managedPolicyFinding(scope: IConstruct, managedPolicyName: string): string {
  return `AwsSolutions-IAM4[Policy::${flattenForNag(scope, ManagedPolicy.fromAwsManagedPolicyName(managedPolicyName).managedPolicyArn)}]`;
}

/** Acknowledges the `<table>/index/*` resource a CDK table grant adds to `grantee`. */
export function acknowledgeTableGrant(grantee: IConstruct, table: ITable): void {
  acknowledge(
    grantee,
    "grantReadData/grantReadWriteData add <table>/index/* so queries can use the table's GSIs; scoped to this one table.",
    wildcardResourceFinding(grantee, `${table.tableArn}/index/*`),
  );
}

/** Acknowledges the wildcards a CDK bucket grant adds to `grantee`. */
export function acknowledgeBucketGrant(grantee: IConstruct, bucket: IBucket): void {
  acknowledge(
    grantee,
    'grantRead/grantReadWrite on this one bucket: object actions need <bucket>/*, and the CDK grant uses action families (s3:GetObject*, s3:List*, ...).',
    wildcardResourceFinding(grantee, `${bucket.bucketArn}/*`),
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
      (a) => `AwsSolutions-IAM5[Action::${a}]`,
    ),
  );
}
