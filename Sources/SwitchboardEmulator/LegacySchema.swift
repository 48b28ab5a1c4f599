import GraphQL

/// The legacy GraphQL schema of contract §4, built with GraphQLSwift from its SDL; subscription
/// documents are parsed and validated against it (``SubscriptionDocument``).
enum LegacySchema {
    /// Contract §4, verbatim apart from comments.
    static let sdl = """
        enum LicensePhase { SetupStatus Valid NoticePeriod GracePeriod RenewalOverdue Invalid }
        enum ArchiveStatus { Pending Uploading Processing Ready Failed Deleted }
        enum TokenRevokeReason { PASSWORD_CHANGED }

        type DeviceState {
          deviceGroupID: String
          orgId: String
          thingName: String
          derivant: String
          mac: String
          online: Boolean
          recording: Boolean
          fwUpdateState: Int
        }

        type ArchiveState {
          deviceGroupID: String
          orgId: String
          thingName: String
          derivant: String
          mac: String
          archiveId: String
          status: ArchiveStatus
          videoLength: Float
          videoSize: Float
          cloudSize: Float
          hasH265: Boolean
          createdAt: String
        }

        type AIOption { key: String! enabled: Boolean! }
        type AIControlSetting { uuid: String termsAgreement: Boolean options: [AIOption!] }

        type OrganizationState {
          orgId: String
          licensePhase: LicensePhase
          isFreePlan: Boolean
          AIControlSetting: AIControlSetting
        }

        type RoleChange { reason: String }

        type UserTokenRevoke {
          userId: ID!
          revokedAt: String!
          reason: TokenRevokeReason
          requestId: String
        }

        type Query { health: String }

        type Subscription {
          subscribeDeviceState(userId: ID!): DeviceState
          subscribeOrganizationState(orgId: ID!): OrganizationState
          subscribeArchiveState(userId: ID!): ArchiveState
          subscribeRoleChange(userId: ID!): RoleChange
          subscribeUserTokenRevoke(userId: ID!): UserTokenRevoke
        }
        """

    /// The schema; built once (the SDL is a constant, so a failure is a programming error).
    static let schema: GraphQLSchema = {
        do {
            return try buildSchema(source: sdl)
        } catch {
            fatalError("the legacy schema does not build: \(error)")
        }
    }()
}
